#include <catch2/catch.hpp>

#include "testing/fake_transport.h"
#include "tputrain/ray/wait.h"

namespace tputrain::ray {
namespace {

using tputrain::testing::FakeClock;
using tputrain::testing::FakeTransport;

std::string Job(const char* status) {
  return std::string(R"({"type":"SUBMISSION","submission_id":"j","status":")") + status + R"("})";
}

}  // namespace

TEST_CASE("waiting for a job polls soon, then backs off to 2 s, and returns its final details") {
  FakeTransport transport;
  FakeClock unused;
  JobsClient client(transport, unused, ClientOptions{.address = "http://127.0.0.1:8265"});
  for (int i = 0; i < 6; ++i) transport.Reply(200, Job("RUNNING"));
  transport.Reply(200, Job("STOPPED"));
  FakeClock time;  // moves only when the waiter sleeps: the timeout is reached by the script
  auto job = WaitUntilTerminal(client, "j", {time, time, nullptr});
  REQUIRE(job);
  CHECK(job->status == JobStatus::kStopped);
  REQUIRE(time.sleeps().size() == 6);
  CHECK(time.sleeps().front() == std::chrono::milliseconds(100));
  CHECK(time.sleeps().back() == std::chrono::milliseconds(2000));
}

TEST_CASE("a wait past its timeout says which state the job is still in") {
  FakeTransport transport;
  FakeClock unused;
  JobsClient client(transport, unused, ClientOptions{.address = "http://127.0.0.1:8265"});
  for (int i = 0; i < 50; ++i) transport.Reply(200, Job("RUNNING"));
  FakeClock time;  // moves only when the waiter sleeps: the timeout is reached by the script
  auto job = WaitUntilTerminal(client, "j", {time, time, nullptr}, std::chrono::seconds(5));
  REQUIRE_FALSE(job);
  CHECK(job.error().kind == core::ErrorKind::kDeadlineExceeded);
  CHECK(job.error().message == "job 'j' is still RUNNING after --timeout");
}

TEST_CASE("an error reading the job is returned, not waited through") {
  FakeTransport transport;
  FakeClock unused;
  JobsClient client(transport, unused, ClientOptions{.address = "http://127.0.0.1:8265"});
  transport.Reply(404, "Job j does not exist");
  FakeClock time;  // moves only when the waiter sleeps: the timeout is reached by the script
  auto job = WaitUntilTerminal(client, "j", {time, time, nullptr});
  REQUIRE_FALSE(job);
  CHECK(job.error().kind == core::ErrorKind::kNotFound);
  CHECK(time.sleeps().empty());
}

}  // namespace tputrain::ray
