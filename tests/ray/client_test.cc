#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "testing/fake_transport.h"
#include "tputrain/ray/jobs_client.h"

namespace tputrain::ray {
namespace {

using tputrain::testing::FakeClock;
using tputrain::testing::FakeTransport;

constexpr const char* kVersion = R"({"version":"4","ray_version":"2.60.0","ray_commit":"abc","session_name":"s"})";

// The shape of the head's reply to a duplicate id: its own traceback wrapping the agent's.
constexpr const char* kDuplicate =
    "Traceback (most recent call last):\n  File \"job_head.py\", line 1, in submit_job\n"
    "RuntimeError: Request failed with status code 400: Traceback (most recent call last):\n"
    "ValueError: Job with submission_id job-7 already exists. Please use a different submission_id.\n.\n";

JobsClient MakeClient(FakeTransport& transport, FakeClock& sleeper) {
  ClientOptions options;
  options.address = "http://127.0.0.1:8265";
  options.headers = {{"X-Extra", "1"}};
  options.make_submission_id = [] { return std::string("raysubmit_fixed"); };
  return JobsClient(transport, sleeper, options);
}

}  // namespace

TEST_CASE("Ray's text/plain errors become one clean line with the right kind") {
  auto error = ErrorFromRay(http::Response{500, {}, kDuplicate}, "ray.jobs.submit");
  CHECK(error.kind == core::ErrorKind::kAlreadyExists);
  CHECK(error.message.find("job 'job-7' already exists") == 0);

  error = ErrorFromRay(http::Response{404, {}, "Job nope does not exist"}, "ray.jobs.get");
  CHECK(error.kind == core::ErrorKind::kNotFound);
  CHECK(error.message == "Job nope does not exist");

  error = ErrorFromRay(http::Response{400,
                                      {},
                                      "Traceback (most recent call last):\n  File \"x\"\n"
                                      "           ^^^^^\nTypeError: got an unexpected keyword argument 'bogus'\n"},
                       "ray.jobs.submit");
  CHECK(error.message == "TypeError: got an unexpected keyword argument 'bogus'");
  CHECK(error.http_status == 400);

  error = ErrorFromRay(http::Response{500,
                                      {},
                                      "Traceback...\nRuntimeError: Attempted to delete job 'j', but it is in "
                                      "a non-terminal state RUNNING.\n"},
                       "ray.jobs.delete");
  CHECK(error.kind == core::ErrorKind::kFailedPrecondition);
  CHECK(error.message.find("non-terminal state RUNNING.") != std::string::npos);
}

TEST_CASE("the submit body holds only set fields, and fields the head's Ray lacks are refused") {
  ServerVersion v2_60{4, "2.60.0", "", ""};
  SubmitRequest request{.entrypoint = "python x.py", .submission_id = "a"};
  auto body = SubmitBody(request, v2_60);
  REQUIRE(body);
  CHECK(*body ==
        nlohmann::json::parse(R"({"entrypoint":"python x.py","submission_id":"a","runtime_env":{},"metadata":{}})"));

  request.entrypoint_memory = 1024;
  request.entrypoint_num_cpus = 0.5;
  request.entrypoint_resources = {{"TPU", 4}};
  body = SubmitBody(request, v2_60);
  REQUIRE(body);
  CHECK((*body)["entrypoint_memory"].is_number_integer());
  CHECK((*body)["entrypoint_resources"]["TPU"] == 4);

  auto old = SubmitBody(request, ServerVersion{3, "2.7.1", "", ""});
  REQUIRE_FALSE(old);
  CHECK(old.error().kind == core::ErrorKind::kFailedPrecondition);
  CHECK(old.error().message.find("--entrypoint-memory needs Ray 2.8") == 0);

  request.entrypoint_memory.reset();
  request.entrypoint_num_cpus.reset();
  request.entrypoint_resources.clear();
  auto one = SubmitBody(request, ServerVersion{1, "1.13.0", "", ""});
  REQUIRE(one);
  CHECK(one->contains("job_id"));  // API 1 knows no submission_id
  CHECK_FALSE(one->contains("submission_id"));
}

TEST_CASE("'No available agent' right after start is retried with backoff; other errors are not") {
  FakeTransport transport;
  FakeClock sleeper;
  auto client = MakeClient(transport, sleeper);
  transport.Reply(200, kVersion);
  transport.Reply(500, "No available agent to submit job, please try again later.");
  transport.Reply(500, "No available agent to submit job, please try again later.");
  transport.Reply(200, R"({"job_id":"raysubmit_fixed","submission_id":"raysubmit_fixed"})");
  auto result = client.Submit(SubmitRequest{.entrypoint = "true"});
  REQUIRE(result);
  CHECK(result->submission_id == "raysubmit_fixed");
  CHECK_FALSE(result->reattached);
  REQUIRE(sleeper.sleeps().size() == 2);
  CHECK(sleeper.sleeps()[1] == 2 * sleeper.sleeps()[0]);
  REQUIRE(transport.requests().size() == 4);
  CHECK(transport.requests()[1].url == "http://127.0.0.1:8265/api/jobs/");
  CHECK(transport.requests()[1].body == transport.requests()[3].body);  // same id every time
  CHECK(http::FindHeader(transport.requests()[1].headers, "X-Extra") == "1");

  transport.Reply(404, "Job x does not exist");
  auto missing = client.Get("x");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().kind == core::ErrorKind::kNotFound);
  CHECK(sleeper.sleeps().size() == 2);
}

// A head (or a proxy before it) whose reply names no job in the usual way: the id tputrain sent is
// the job's. `"job_id": null` once made the submit an internal error.
TEST_CASE("a submit reply with null, missing or non-string ids names the job by the id sent; odd stop replies") {
  FakeTransport transport;
  FakeClock sleeper;
  auto client = MakeClient(transport, sleeper);
  transport.Reply(200, kVersion);
  for (const char* reply : {R"({"job_id": null, "submission_id": "raysubmit_fixed"})", R"({"job_id": null})",
                            R"({"job_id": null, "submission_id": null})", R"({"submission_id": 7})", R"({})", R"([])",
                            R"("raysubmit_fixed")"}) {
    INFO(reply);
    transport.Reply(200, reply);
    auto result = client.Submit(SubmitRequest{.entrypoint = "true"});
    REQUIRE(result);
    CHECK(result->submission_id == "raysubmit_fixed");
  }
  // An old head that names its own id: that is the job's.
  transport.Reply(200, R"({"job_id": "raysubmit_theirs", "submission_id": null})");
  auto theirs = client.Submit(SubmitRequest{.entrypoint = "true"});
  REQUIRE(theirs);
  CHECK(theirs->submission_id == "raysubmit_theirs");
  for (const char* reply : {R"({"stopped": null})", R"([])", R"({"stopped": "yes"})"}) {
    INFO(reply);
    transport.Reply(200, reply);
    auto stopped = client.Stop("raysubmit_fixed");
    REQUIRE(stopped);
    CHECK_FALSE(*stopped);
  }
}

TEST_CASE("a submit whose reply was lost re-attaches when the retry finds its own id taken") {
  FakeTransport transport;
  FakeClock sleeper;
  auto client = MakeClient(transport, sleeper);
  transport.Reply(200, kVersion);
  transport.Lose();
  transport.Reply(500, std::string(kDuplicate));
  auto result = client.Submit(SubmitRequest{.entrypoint = "true"});
  REQUIRE(result);
  CHECK(result->reattached);
  CHECK(result->submission_id == "raysubmit_fixed");

  // Without a lost attempt, the same reply is the user's duplicate.
  transport.Reply(500, std::string(kDuplicate));
  auto duplicate = client.Submit(SubmitRequest{.entrypoint = "true", .submission_id = "job-7"});
  REQUIRE_FALSE(duplicate);
  CHECK(duplicate.error().kind == core::ErrorKind::kAlreadyExists);
  CHECK(std::ranges::count_if(transport.requests(),
                              [](const http::Request& r) { return r.url.ends_with("/api/version"); }) == 1);
}

TEST_CASE("addresses, headers and the Ray token resolve as the Ray CLI's do") {
  CHECK(*NormalizeAddress("127.0.0.1:8265/") == "http://127.0.0.1:8265");
  CHECK(*NormalizeAddress("https://api.example/api/v1/namespaces/n/services/s:8265/proxy/") ==
        "https://api.example/api/v1/namespaces/n/services/s:8265/proxy");
  auto ray = NormalizeAddress("ray://127.0.0.1:10001");
  REQUIRE_FALSE(ray);
  CHECK(core::IsUsageError(ray.error()));

  core::Env env;
  auto none = ResolveClientOptions({}, env, std::nullopt);
  REQUIRE_FALSE(none);
  CHECK(none.error().message.find("--address") != std::string::npos);

  env.Set("RAY_ADDRESS", "http://127.0.0.1:1");
  env.Set("RAY_JOB_HEADERS", R"({"Authorization": "Bearer k8s"})");
  std::string token_file = "/tmp/tputrain-ray-token-" + std::to_string(getpid());
  std::ofstream(token_file) << "ray-secret\n";
  env.Set("RAY_AUTH_TOKEN_PATH", token_file);
  auto options = ResolveClientOptions({}, env, std::string("http://127.0.0.1:2"));
  REQUIRE(options);
  CHECK(options->address == "http://127.0.0.1:1");
  CHECK(http::FindHeader(options->headers, "authorization") == "Bearer k8s");
  CHECK(http::FindHeader(options->headers, "x-ray-authorization") == "Bearer ray-secret");
  std::filesystem::remove(token_file);

  auto flags =
      ResolveClientOptions({.address = "http://127.0.0.1:3", .headers = {"X-A: b"}}, core::Env(), std::nullopt);
  REQUIRE(flags);
  CHECK(flags->headers == http::Headers{{"X-A", "b"}});
  auto bad = ResolveClientOptions({.address = "http://127.0.0.1:3", .headers = {"nocolon"}}, core::Env(), std::nullopt);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("--header") == 0);
}

TEST_CASE("job statuses and exit codes") {
  CHECK(ParseJobStatus("SUCCEEDED") == JobStatus::kSucceeded);
  CHECK(ParseJobStatus("weird") == JobStatus::kUnknown);
  CHECK(IsTerminal(JobStatus::kStopped));
  CHECK_FALSE(IsTerminal(JobStatus::kPending));
  CHECK(ExitCodeForJob(JobStatus::kSucceeded) == 0);
  CHECK(ExitCodeForJob(JobStatus::kFailed) == 1);
  CHECK(ExitCodeForJob(JobStatus::kStopped) == kExitJobStopped);
  auto job = ParseJobDetails(nlohmann::json::parse(
      R"({"type":"SUBMISSION","submission_id":"s","job_id":null,"status":"RUNNING","driver_info":{"id":"1","node_ip_address":"x","pid":"42"},"future_field":1})"));
  REQUIRE(job);
  CHECK(job->id() == "s");
  CHECK(job->driver_info->pid == "42");
  CHECK(job->raw.contains("future_field"));
}

}  // namespace tputrain::ray

namespace tputrain::ray {

TEST_CASE("a head that does not answer at all is given up on after a few quick tries") {
  FakeTransport transport;
  FakeClock sleeper;
  auto client = MakeClient(transport, sleeper);
  for (int i = 0; i < 5; ++i) transport.Lose();
  auto job = client.Get("x");
  REQUIRE_FALSE(job);
  CHECK(job.error().kind == core::ErrorKind::kUnavailable);
  CHECK(job.error().where == "ray.jobs.get");
  CHECK(transport.requests().size() == 3);
  CHECK(sleeper.sleeps().size() == 2);

  // A stop is not idempotent: no reply means no retry (the head may have acted).
  transport.Clear();
  transport.Lose();
  CHECK_FALSE(client.Stop("x"));
  CHECK(transport.requests().size() == 1);
}

}  // namespace tputrain::ray
