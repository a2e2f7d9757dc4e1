// The examples' last step, whatever happened before it: cleanup of the run, then the leak check,
// each script run by bash with a stand-in `tputrain` on PATH that fails every step (as bad input
// would) and plays cleanup and the check as told: a ledger or none, a cleanup that takes a while,
// a leak.
#include <csignal>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kExamples = fs::path(TPUTRAIN_SOURCE_DIR) / "examples";

constexpr char kFakeTputrain[] = R"SH(#!/bin/bash
# Every step fails as bad input does (exit 2, nothing recorded); `runs show`, `cleanup` and
# `cleanup --dry-run --detailed-exitcode` answer as $FAKE_DIR says.
if [ "$1 $2" = "runs show" ]; then
  [ -f "$FAKE_DIR/ledger" ] && exit 0
  echo "ERROR: no ledger for run" >&2
  exit 1
fi
if [ "$1" = cleanup ]; then
  [ -f "$FAKE_DIR/ledger" ] || { echo "ERROR: --run: no run" >&2; exit 2; }
  for arg in "$@"; do [ "$arg" = --dry-run ] && exit "$(cat "$FAKE_DIR/leak" 2>/dev/null || echo 0)"; done
  echo started >>"$FAKE_DIR/cleanup"
  sleep "$(cat "$FAKE_DIR/cleanup-seconds" 2>/dev/null || echo 0)"
  echo done >>"$FAKE_DIR/cleanup"
  exit 0
fi
echo "ERROR: --zone: expected a zone" >&2
exit 2
)SH";

struct Fake {
  fs::path dir;
  Fake() {
    std::string pattern = (fs::temp_directory_path() / "tputrain-finish-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    dir = pattern;
    fs::create_directories(dir / "bin");
    std::ofstream(dir / "bin" / "tputrain") << kFakeTputrain;
    fs::permissions(dir / "bin" / "tputrain", fs::perms::owner_all);
  }
  ~Fake() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
  void Set(const std::string& name, const std::string& value) { std::ofstream(dir / name) << value; }
  std::string Read(const std::string& name) const {
    std::ifstream in(dir / name);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  ProcessOptions Script(const fs::path& script) const {
    return {.argv = {"/bin/bash", script.string()},
            .env = {{"PATH", (dir / "bin").string() + ":/usr/sbin:/usr/bin:/sbin:/bin"},
                    {"FAKE_DIR", dir.string()},
                    {"PROJECT", "p"},
                    {"RUN", "r1"},
                    {"TPU_TYPE", "v6e-16"},
                    {"DRY_RUN", std::nullopt},
                    {"TPUTRAIN_RUN", std::nullopt}},
            .working_dir = dir.string()};
  }
};

std::vector<fs::path> Scripts() {
  std::vector<fs::path> scripts;
  for (const auto& entry : fs::directory_iterator(kExamples)) {
    if (entry.path().extension() == ".sh") scripts.push_back(entry.path());
  }
  std::sort(scripts.begin(), scripts.end());
  return scripts;
}

}  // namespace

TEST_CASE("a script whose first step failed on bad input reports no leak: it recorded nothing") {
  REQUIRE(Scripts().size() == 5);
  for (const auto& script : Scripts()) {
    Fake fake;
    auto ran = RunProcess(fake.Script(script));
    INFO(script.filename() << "\n" << ran.err);
    CHECK(ran.exit_code != 0);
    CHECK(ran.err.find("ERROR: --zone: expected a zone") != std::string::npos);
    CHECK(ran.err.find("run r1 recorded nothing: nothing to clean up") != std::string::npos);
    CHECK(ran.err.find("LEAK") == std::string::npos);
    CHECK(fake.Read("cleanup").empty());
  }
}

TEST_CASE("a script's leak check tells a leak (exit 3) from a check that gave no answer") {
  for (const auto& script : Scripts()) {
    for (const auto& [leak, said] : {std::pair{"3", "LEAK: run r1 still has resources"},
                                     std::pair{"1", "the leak check of run r1 failed (exit 1)"}}) {
      Fake fake;
      fake.Set("ledger", "");
      fake.Set("leak", leak);
      auto ran = RunProcess(fake.Script(script));
      INFO(script.filename() << "\n" << ran.err);
      CHECK(ran.exit_code == 1);
      CHECK(fake.Read("cleanup") == "started\ndone\n");
      CHECK(ran.err.find(said) != std::string::npos);
    }
  }
}

// A CI cancelling a job sends TERM, then (impatient, or a user at a terminal twice Ctrl-C) again:
// the second signal once ended the script in the middle of its cleanup, leaving the run billing.
TEST_CASE("a second Ctrl-C or TERM while a script cleans up does not cut the cleanup short") {
  for (const auto& script : Scripts()) {
    for (int signal : {SIGINT, SIGTERM}) {
      Fake fake;
      fake.Set("ledger", "");
      fake.Set("cleanup-seconds", "2");
      ScopedProcess running(fake.Script(script));
      REQUIRE(WaitFor([&] { return fake.Read("cleanup") == "started\n"; }, std::chrono::seconds(30)));
      // To the script's process group, as a terminal's Ctrl-C or a CI runner's cancel reaches it.
      kill(-running.pid(), signal);
      kill(-running.pid(), signal);
      REQUIRE(WaitFor([&] { return !running.running(); }, std::chrono::seconds(30)));
      INFO(script.filename() << " signal " << signal << "\n" << running.ReadErr());
      CHECK(fake.Read("cleanup") == "started\ndone\n");
      CHECK(running.Stop() == 2);
    }
  }
}

}  // namespace tputrain::testing
