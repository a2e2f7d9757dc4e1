// WatchObject's loop over a scripted API server: when it lists, resumes and waits. The API
// server's own behaviour (bookmarks, 410 after compaction, a restart) is in wait_integration_test.
#include <catch2/catch.hpp>

#include "testing/fake_transport.h"
#include "tputrain/k8s/watch.h"

namespace tputrain::k8s {
namespace {

using std::chrono::milliseconds;
using tputrain::testing::FakeClock;
using tputrain::testing::FakeTransport;

constexpr const char* kPods = "/api/v1/namespaces/default/pods";

std::string Pod(const char* phase, int resource_version) {
  return nlohmann::json{{"metadata", {{"name", "p"}, {"resourceVersion", std::to_string(resource_version)}}},
                        {"status", {{"phase", phase}}}}
      .dump();
}

std::string PodList(const char* phase, int resource_version) {
  return R"({"kind":"PodList","metadata":{"resourceVersion":")" + std::to_string(resource_version) + R"("},"items":[)" +
         Pod(phase, resource_version) + "]}";
}

std::string Event(const char* type, const std::string& object) {
  return std::string(R"({"type":")") + type + R"(","object":)" + object + "}\n";
}

Verdict Running(const nlohmann::json* pod) {
  if (pod == nullptr) return Verdict::Waiting("absent");
  std::string phase = (*pod)["status"].value("phase", "");
  return phase == "Running" ? Verdict::Done() : Verdict::Waiting("phase " + phase);
}

struct Fixture {
  FakeTransport transport;
  FakeClock clock;
  Client client{transport, "https://k8s.test"};

  core::Result<WatchOutcome> Watch(milliseconds timeout = milliseconds(60'000),
                                   const core::CancelToken* cancel = nullptr) {
    return WatchObject(client, kPods, "p", Running, {.timeout = timeout}, {clock, clock, cancel});
  }
  std::vector<std::string> Urls() {
    std::vector<std::string> urls;
    for (const auto& request : transport.requests()) urls.push_back(request.url);
    return urls;
  }
};

bool Watches(const std::string& url, const std::string& resource_version) {
  return url.find("watch=1") != std::string::npos &&
         url.find("resourceVersion=" + resource_version + "&") != std::string::npos;
}

}  // namespace

TEST_CASE("a watch resumes from the last resourceVersion, lists again after 410, and waits for neither") {
  Fixture f;
  f.transport.Reply(200, PodList("Pending", 10));
  f.transport.Reply(200, Event("MODIFIED", Pod("Pending", 11)));  // the server ends the stream
  f.transport.Reply(200, R"({"type":"ERROR","object":{"kind":"Status","code":410}})"
                         "\n");
  f.transport.Reply(200, PodList("Pending", 20));
  f.transport.Reply(200, Event("MODIFIED", Pod("Running", 21)));
  auto outcome = f.Watch();
  REQUIRE(outcome);
  CHECK(outcome->verdict.state == Verdict::State::kDone);
  CHECK(outcome->object["metadata"]["resourceVersion"] == "21");
  auto urls = f.Urls();
  REQUIRE(urls.size() == 5);
  CHECK(urls[0].find("watch=1") == std::string::npos);
  CHECK(Watches(urls[1], "10"));
  CHECK(Watches(urls[2], "11"));
  CHECK(urls[3].find("watch=1") == std::string::npos);
  CHECK(Watches(urls[4], "20"));
  CHECK(f.clock.sleeps().empty());
  CHECK(outcome->stats.lists == 2);
  CHECK(outcome->stats.watches == 3);
  CHECK(outcome->stats.resumes == 1);
  CHECK(outcome->stats.relists == 1);
}

TEST_CASE("transient failures back off from 100 ms, doubling, and start over once the stream moved") {
  Fixture f;
  f.transport.Lose();                                         // the list: no answer
  f.transport.Reply(503, R"({"kind":"Status","code":503})");  // the list: a restarting server
  f.transport.Reply(200, PodList("Pending", 10));
  f.transport.Lose();  // the watch breaks
  f.transport.Reply(429, R"({"kind":"Status","code":429,"message":"storage is (re)initializing"})");
  f.transport.Reply(200, Event("MODIFIED", Pod("Pending", 11)));  // events, then the server's end
  f.transport.Lose();
  f.transport.Reply(200, Event("MODIFIED", Pod("Running", 12)));
  auto outcome = f.Watch();
  REQUIRE(outcome);
  CHECK(outcome->verdict.state == Verdict::State::kDone);
  CHECK(f.clock.sleeps() == std::vector<milliseconds>{milliseconds(100), milliseconds(200), milliseconds(400),
                                                      milliseconds(800), milliseconds(100)});
  CHECK(Watches(f.Urls().back(), "11"));
  CHECK(outcome->stats.lists == 1);
}

TEST_CASE("the pause between failures stops growing at 5 s and never reaches past the timeout") {
  Fixture f;
  f.transport.Otherwise(core::Fail(core::Error::Make(core::ErrorKind::kUnavailable, "connection refused")));
  auto unreachable = f.Watch(milliseconds(20'000));
  REQUIRE_FALSE(unreachable);  // never listed: the server's failure is the answer
  CHECK(unreachable.error().message.find("connection refused") != std::string::npos);
  auto sleeps = f.clock.sleeps();
  CHECK(sleeps == std::vector<milliseconds>{milliseconds(100), milliseconds(200), milliseconds(400), milliseconds(800),
                                            milliseconds(1600), milliseconds(3200), milliseconds(5000),
                                            milliseconds(5000), milliseconds(3700)});
  CHECK(f.transport.requests().size() == sleeps.size());
}

TEST_CASE("a timeout after the object was read returns what was seen, not an error") {
  Fixture f;
  f.clock.StepEachRead(milliseconds(100));
  f.transport.Reply(200, PodList("Pending", 10));
  f.transport.On("GET", "watch=1", {testing::JsonReply(200, "")});  // quiet streams, ended by the server
  auto outcome = f.Watch(milliseconds(2'000));
  REQUIRE(outcome);
  CHECK(outcome->verdict.state == Verdict::State::kWaiting);
  CHECK(outcome->verdict.detail == "phase Pending");
  CHECK(outcome->stats.resumes >= 1);
  CHECK(f.clock.sleeps().empty());

  Fixture broken;  // the same when the last watch broke: the object was read, the wait timed out
  broken.clock.StepEachRead(milliseconds(100));
  broken.transport.Reply(200, PodList("Pending", 10));
  broken.transport.Otherwise(core::Fail(core::Error::Make(core::ErrorKind::kUnavailable, "connection reset")));
  auto timed_out = broken.Watch(milliseconds(2'000));
  REQUIRE(timed_out);
  CHECK(timed_out->verdict.detail == "phase Pending");
  CHECK_FALSE(broken.clock.sleeps().empty());
}

TEST_CASE("a refusal ends the watch at once; so does Ctrl-C") {
  Fixture f;
  f.transport.Reply(403, R"({"kind":"Status","code":403,"reason":"Forbidden","message":"pods is forbidden"})");
  auto refused = f.Watch();
  REQUIRE_FALSE(refused);
  CHECK(refused.error().kind == core::ErrorKind::kPermissionDenied);
  CHECK(f.transport.requests().size() == 1);
  CHECK(f.clock.sleeps().empty());

  Fixture cancelled;
  core::CancelToken cancel;
  cancel.Cancel();
  auto interrupted = cancelled.Watch(milliseconds(60'000), &cancel);
  REQUIRE_FALSE(interrupted);
  CHECK(interrupted.error().kind == core::ErrorKind::kCancelled);
  CHECK(interrupted.error().message == "interrupted while waiting");
  CHECK(cancelled.transport.requests().empty());
}

}  // namespace tputrain::k8s
