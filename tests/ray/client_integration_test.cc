// The library (JobsClient, LogFollower, the WebSocket tail) against a real Ray head.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "ray/ray_head.h"
#include "testing/fake_transport.h"
#include "tputrain/core/clock.h"
#include "tputrain/http/curl_transport.h"
#include "tputrain/http/websocket.h"
#include "tputrain/ray/jobs_client.h"
#include "tputrain/ray/log_follower.h"

namespace tputrain::ray {
namespace {

// "METHOD /api/..." requests that reached the head, counted exactly.
size_t Count(tputrain::testing::FakeTransport& transport, const std::string& line) {
  size_t count = 0;
  for (const auto& request : transport.requests()) {
    if (request.method + " " + request.url.substr(request.url.find("/api/")) == line) ++count;
  }
  return count;
}

struct Fixture {
  testing::RayHead& head = testing::SharedRayHead();
  http::CurlTransport real;
  tputrain::testing::FakeTransport transport{real};  // records what reaches the head
  core::SystemClock clock;
  core::RealSleeper sleeper;
  JobsClient client{transport, sleeper, ClientOptions{.address = head.address()}};
  http::CurlWebSocketConnector connector;
};

constexpr const char* kPrinter =
    "python -c \"import time\nfor i in range(6):\n    print('line', i, 'x' * i, flush=True)\n    time.sleep(0.3)\"";

}  // namespace

TEST_CASE("one version handshake per client, whatever the calls", "[integration]") {
  Fixture f;
  auto submitted = f.client.Submit(SubmitRequest{.entrypoint = "echo handshake"});
  REQUIRE(submitted);
  REQUIRE(f.client.Get(submitted->submission_id));
  REQUIRE(f.client.List());
  auto version = f.client.Version();
  REQUIRE(version);
  CHECK(version->api_version >= 4);
  CHECK(version->ray_version == "2.60.0");
  CHECK(Count(f.transport, "GET /api/version") == 1);
  CHECK(Count(f.transport, "POST /api/jobs/") == 1);  // the trailing slash
}

TEST_CASE("following over the WebSocket and by polling deliver the same text as the final log", "[integration]") {
  Fixture f;
  auto submitted = f.client.Submit(SubmitRequest{.entrypoint = kPrinter});
  REQUIRE(submitted);
  const std::string& id = submitted->submission_id;

  std::string tailed;
  int chunks = 0;
  LogFollower tail(f.client, f.connector, f.clock, f.sleeper, FollowOptions{});
  auto job = tail.Follow(id, [&](std::string_view text) {
    tailed += text;
    ++chunks;
  });
  REQUIRE(job);
  CHECK(job->status == JobStatus::kSucceeded);
  CHECK(chunks > 1);                                                // streamed as it came, not once at the end
  CHECK(Count(f.transport, "GET /api/jobs/" + id + "/logs") == 1);  // no polling, only the end's check

  auto full = f.client.Logs(id);
  REQUIRE(full);
  CHECK(tailed == *full);
  CHECK(tail.offset() == full->size());

  std::string polled;
  LogFollower poll(f.client, f.connector, f.clock, f.sleeper, FollowOptions{.use_websocket = false});
  REQUIRE(poll.Follow(id, [&](std::string_view text) { polled += text; }));
  CHECK(polled == *full);

  // A re-attach that has already shown part of the log: the socket replays from byte 0 and
  // only the rest is delivered.
  size_t half = full->size() / 2;
  std::string rest;
  LogFollower resumed(f.client, f.connector, f.clock, f.sleeper, FollowOptions{.start_offset = half});
  REQUIRE(resumed.Follow(id, [&](std::string_view text) { rest += text; }));
  CHECK(rest == full->substr(half));
}

// The head relays the agent's tail with aiohttp's 4 MiB message limit, and a line is one message:
// after a 20 MB line the tail ends with a normal close, the job SUCCEEDED, the rest never sent.
TEST_CASE("a line longer than the head relays, and every line after it, are delivered", "[integration]") {
  Fixture f;
  auto submitted = f.client.Submit(
      SubmitRequest{.entrypoint = "python -c \"print('before'); print('x' * 20000000); print('after', flush=True)\""});
  REQUIRE(submitted);
  std::string out;
  std::vector<std::string> notices;
  LogFollower follower(f.client, f.connector, f.clock, f.sleeper,
                       FollowOptions{.on_notice = [&](std::string_view n) { notices.emplace_back(n); }});
  auto job = follower.Follow(submitted->submission_id, [&](std::string_view text) { out += text; });
  REQUIRE(job);
  CHECK(job->status == JobStatus::kSucceeded);
  auto full = f.client.Logs(submitted->submission_id);
  REQUIRE(full);
  CHECK(out.size() == full->size());
  const bool whole = out == *full;  // not compared by Catch: it would print 20 MB twice
  CHECK(whole);
  CHECK(out.find(std::string(20000000, 'x') + "\nafter\n") != std::string::npos);
  INFO(notices.size());
  CHECK(std::any_of(notices.begin(), notices.end(),
                    [](const std::string& n) { return n.find("the log stream ended") == 0; }));
}

TEST_CASE("the log tail of an unknown job is a NotFound, not a fall-back to polling", "[integration]") {
  Fixture f;
  LogFollower follower(f.client, f.connector, f.clock, f.sleeper, FollowOptions{});
  auto job = follower.Follow("no-such-job", [](std::string_view) {});
  REQUIRE_FALSE(job);
  CHECK(job.error().kind == core::ErrorKind::kNotFound);
  CHECK(job.error().http_status == 404);
}

TEST_CASE("a working_dir is uploaded once and referenced by its gcs:// URI", "[integration]") {
  Fixture f;
  std::string dir = "/tmp/trwd-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/hello.py") << "print('hello from the package')\n";
  auto package = PackageWorkingDir(dir);
  REQUIRE(package);
  auto uri = f.client.UploadWorkingDir(dir);
  REQUIRE(uri);
  CHECK(*uri == package->uri());
  auto again = f.client.UploadWorkingDir(dir);
  REQUIRE(again);
  CHECK(*again == *uri);
  CHECK(Count(f.transport, "PUT /api/packages/gcs/" + package->name) <= 1);
  CHECK(Count(f.transport, "GET /api/packages/gcs/" + package->name) == 2);

  SubmitRequest request{.entrypoint = "python hello.py"};
  request.runtime_env["working_dir"] = *uri;
  auto submitted = f.client.Submit(request);
  REQUIRE(submitted);
  std::string out;
  LogFollower follower(f.client, f.connector, f.clock, f.sleeper, FollowOptions{});
  auto job = follower.Follow(submitted->submission_id, [&](std::string_view text) { out += text; });
  REQUIRE(job);
  CHECK(job->status == JobStatus::kSucceeded);
  CHECK(out.find("hello from the package") != std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace tputrain::ray
