// `tputrain job ...` against a real Ray head on loopback (tests/ray/ray_head.h).
#include <signal.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ray/ray_head.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

ProcessResult Tputrain(std::vector<std::string> args) {
  auto& head = SharedRayHead();
  args.insert(args.begin(), TputrainBinary());
  auto env = head.CliEnv();
  env["RAY_ADDRESS"] = head.address();
  return RunProcess(ProcessOptions{args, env, "", ""}, std::chrono::seconds(180));
}

std::string Unique(const std::string& prefix) {
  static int counter = 0;
  return prefix + "-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
}

nlohmann::json Json(const ProcessResult& result) {
  INFO(result.out << result.err);
  auto json = nlohmann::json::parse(result.out, nullptr, false);
  REQUIRE_FALSE(json.is_discarded());
  return json;
}

std::string TempDir() {
  std::string pattern = "/tmp/trjob-XXXXXX";
  REQUIRE(mkdtemp(pattern.data()) != nullptr);
  return pattern;
}

}  // namespace

TEST_CASE("job submit follows the log until the job succeeds and exits 0", "[integration]") {
  auto result = Tputrain({"job", "submit", "--", "python", "-c",
                          "import time\nfor i in range(4):\n    print('tick', i, flush=True)\n    time.sleep(0.5)"});
  INFO(result.out << result.err);
  CHECK(result.exit_code == 0);
  // Each line exactly once and in order: the tail's frames were not repeated or dropped.
  auto at = std::string::npos;
  for (int i = 0; i < 4; ++i) {
    std::string line = "tick " + std::to_string(i) + "\n";
    auto found = result.out.find(line);
    REQUIRE(found != std::string::npos);
    CHECK(result.out.find(line, found + 1) == std::string::npos);
    CHECK((at == std::string::npos || found > at));
    at = found;
  }
  CHECK(result.err.find("SUCCEEDED") != std::string::npos);
}

TEST_CASE("status, logs, list and delete of a finished job", "[integration]") {
  std::string id = Unique("finished");
  auto submitted = Tputrain({"job", "submit", "--no-wait", "--submission-id", id, "--", "echo", "hello from", id});
  REQUIRE(submitted.exit_code == 0);
  CHECK(submitted.out == id + "\n");
  auto waited = Tputrain({"job", "wait", id});
  INFO(waited.err);
  REQUIRE(waited.exit_code == 0);

  auto status = Json(Tputrain({"job", "status", id, "--format", "json"}));
  CHECK(status["status"] == "SUCCEEDED");
  CHECK(status["submission_id"] == id);
  CHECK(status["driver_exit_code"] == 0);

  auto logs = Tputrain({"job", "logs", id});
  CHECK(logs.exit_code == 0);
  CHECK(logs.out.find("hello from " + id + "\n") != std::string::npos);

  auto list = Json(Tputrain({"job", "list", "--format", "json"}));
  REQUIRE(list.is_array());
  bool listed = false;
  for (const auto& job : list) listed = listed || job.value("submission_id", nlohmann::json()) == id;
  CHECK(listed);

  auto deleted = Json(Tputrain({"job", "delete", id, "--format", "json"}));
  CHECK(deleted["deleted"] == true);
  auto gone = Tputrain({"job", "status", id});
  CHECK(gone.exit_code == 1);
  CHECK(gone.err.find("does not exist") != std::string::npos);
}

TEST_CASE("job stop stops a running job; its wait exits 3 and a non-terminal delete is refused", "[integration]") {
  std::string id = Unique("stopme");
  REQUIRE(Tputrain({"job", "submit", "--no-wait", "--submission-id", id, "--", "sleep", "300"}).exit_code == 0);
  REQUIRE(WaitFor(
      [&] {
        return Tputrain({"job", "status", id}).out.find("RUNNING") != std::string::npos;
      },
      std::chrono::minutes(2)));
  auto refused = Tputrain({"job", "delete", id});
  CHECK(refused.exit_code == 1);
  CHECK(refused.err.find("non-terminal") != std::string::npos);

  auto stopped = Tputrain({"job", "stop", id});
  INFO(stopped.err);
  CHECK(stopped.exit_code == 0);
  CHECK(Json(Tputrain({"job", "status", id, "--format", "json"}))["status"] == "STOPPED");
  CHECK(Tputrain({"job", "wait", id}).exit_code == 3);
  CHECK(Tputrain({"job", "logs", "--follow", id}).exit_code == 3);
}

TEST_CASE("env_vars and a local working_dir reach the job", "[integration]") {
  std::string dir = TempDir();
  std::filesystem::create_directories(dir + "/pkg/empty");
  std::ofstream(dir + "/pkg/data.txt") << "payload-from-working-dir\n";
  std::ofstream(dir + "/main.py") << "import os\nprint(open('pkg/data.txt').read().strip(), os.environ['GREETING'])\n"
                                     "print('empty dir:', os.path.isdir('pkg/empty'))\n";
  SECTION("--working-dir and --runtime-env-json") {
    auto result = Tputrain({"job", "submit", "--working-dir", dir, "--runtime-env-json",
                            R"({"env_vars": {"GREETING": "hi-json"}})", "--", "python", "main.py"});
    INFO(result.out << result.err);
    CHECK(result.exit_code == 0);
    CHECK(result.out.find("payload-from-working-dir hi-json") != std::string::npos);
    CHECK(result.out.find("empty dir: True") != std::string::npos);
  }
  SECTION("working_dir and env_vars from a --runtime-env YAML file") {
    std::ofstream(dir + ".yaml") << "working_dir: " << dir << "\nenv_vars:\n  GREETING: hi-yaml\n";
    auto result = Tputrain({"job", "submit", "--runtime-env", dir + ".yaml", "--", "python", "main.py"});
    INFO(result.out << result.err);
    CHECK(result.exit_code == 0);
    CHECK(result.out.find("payload-from-working-dir hi-yaml") != std::string::npos);
    std::filesystem::remove(dir + ".yaml");
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("a failing job makes submit exit 1 with Ray's message", "[integration]") {
  auto result = Tputrain({"job", "submit", "--", "python", "-c", "import sys; print('about to fail'); sys.exit(7)"});
  INFO(result.out << result.err);
  CHECK(result.exit_code == 1);
  CHECK(result.out.find("about to fail") != std::string::npos);
  CHECK(result.err.find("FAILED") != std::string::npos);
  CHECK(result.err.find("exit code 7") != std::string::npos);
}

TEST_CASE("an unknown job id is reported in one line, exit 1", "[integration]") {
  for (const auto& command : {std::vector<std::string>{"job", "status", "no-such-job"},
                              std::vector<std::string>{"job", "logs", "no-such-job"},
                              std::vector<std::string>{"job", "logs", "--follow", "no-such-job"},
                              std::vector<std::string>{"job", "stop", "no-such-job"}}) {
    auto result = Tputrain(command);
    INFO(command[1] << ": " << result.err);
    CHECK(result.exit_code == 1);
    CHECK(result.err.find("Job no-such-job does not exist") != std::string::npos);
    CHECK(result.err.find("Traceback") == std::string::npos);
  }
}

TEST_CASE("a duplicate submission id is reported as already existing", "[integration]") {
  std::string id = Unique("dup");
  REQUIRE(Tputrain({"job", "submit", "--no-wait", "--submission-id", id, "--", "true"}).exit_code == 0);
  auto again = Tputrain({"job", "submit", "--no-wait", "--submission-id", id, "--", "true"});
  INFO(again.err);
  CHECK(again.exit_code == 1);
  CHECK(again.err.find("job '" + id + "' already exists") != std::string::npos);
  CHECK(again.err.find("Traceback") == std::string::npos);
  CHECK(std::count(again.err.begin(), again.err.end(), '\n') == 1);
}

TEST_CASE("Ctrl-C while following without a TTY detaches and prints the re-attach command", "[integration]") {
  auto& head = SharedRayHead();
  std::string id = Unique("detach");
  REQUIRE(Tputrain({"job", "submit", "--no-wait", "--submission-id", id, "--", "python", "-c",
                    "import time\nprint('started', flush=True)\ntime.sleep(300)"})
              .exit_code == 0);
  auto env = head.CliEnv();
  env["RAY_ADDRESS"] = head.address();
  ScopedProcess follow(ProcessOptions{{TputrainBinary(), "job", "logs", "--follow", id}, env, "", ""});
  REQUIRE(WaitFor([&] { return follow.ReadOut().find("started") != std::string::npos; }, std::chrono::minutes(2)));
  kill(follow.pid(), SIGINT);
  REQUIRE(WaitFor([&] { return !follow.running(); }, std::chrono::seconds(30)));
  CHECK(follow.Stop() == 130);
  CHECK(follow.ReadErr().find("tputrain job logs --follow " + id + " --address " + head.address()) !=
        std::string::npos);
  CHECK(Json(Tputrain({"job", "status", id, "--format", "json"}))["status"] == "RUNNING");
  CHECK(Tputrain({"job", "stop", id}).exit_code == 0);
}

}  // namespace tputrain::testing
