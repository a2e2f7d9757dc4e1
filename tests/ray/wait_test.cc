#include <catch2/catch.hpp>

#include "ray/scripted.h"
#include "tputrain/ray/wait.h"

namespace tputrain::ray {
namespace {

using testing::RecordingSleeper;
using testing::ScriptedTransport;

std::string Job(const char* status) {
  return std::string(R"({"type":"SUBMISSION","submission_id":"j","status":")") + status + R"("})";
}

// Time moves only when the waiter sleeps, so the timeout is reached by the script, not the machine.
class SleepDrivenClock final : public core::Clock, public core::Sleeper {
 public:
  TimePoint Now() override { return now_; }
  std::chrono::system_clock::time_point WallNow() override { return {}; }
  bool Sleep(std::chrono::milliseconds duration) override {
    sleeps.push_back(duration);
    now_ += duration;
    return true;
  }
  std::vector<std::chrono::milliseconds> sleeps;

 private:
  TimePoint now_{};
};

}  // namespace

TEST_CASE("waiting for a job polls soon, then backs off to 2 s, and returns its final details") {
  ScriptedTransport transport;
  RecordingSleeper unused;
  JobsClient client(transport, unused, ClientOptions{.address = "http://127.0.0.1:8265"});
  for (int i = 0; i < 6; ++i) transport.Reply(200, Job("RUNNING"));
  transport.Reply(200, Job("STOPPED"));
  SleepDrivenClock time;
  auto job = WaitUntilTerminal(client, "j", {time, time, nullptr});
  REQUIRE(job);
  CHECK(job->status == JobStatus::kStopped);
  REQUIRE(time.sleeps.size() == 6);
  CHECK(time.sleeps.front() == std::chrono::milliseconds(100));
  CHECK(time.sleeps.back() == std::chrono::milliseconds(2000));
}

TEST_CASE("a wait past its timeout says which state the job is still in") {
  ScriptedTransport transport;
  RecordingSleeper unused;
  JobsClient client(transport, unused, ClientOptions{.address = "http://127.0.0.1:8265"});
  for (int i = 0; i < 50; ++i) transport.Reply(200, Job("RUNNING"));
  SleepDrivenClock time;
  auto job = WaitUntilTerminal(client, "j", {time, time, nullptr}, std::chrono::seconds(5));
  REQUIRE_FALSE(job);
  CHECK(job.error().kind == core::ErrorKind::kDeadlineExceeded);
  CHECK(job.error().message == "job 'j' is still RUNNING after --timeout");
}

TEST_CASE("an error reading the job is returned, not waited through") {
  ScriptedTransport transport;
  RecordingSleeper unused;
  JobsClient client(transport, unused, ClientOptions{.address = "http://127.0.0.1:8265"});
  transport.Reply(404, "Job j does not exist");
  SleepDrivenClock time;
  auto job = WaitUntilTerminal(client, "j", {time, time, nullptr});
  REQUIRE_FALSE(job);
  CHECK(job.error().kind == core::ErrorKind::kNotFound);
  CHECK(time.sleeps.empty());
}

}  // namespace tputrain::ray
