#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "tputrain/state/ledger.h"

namespace fs = std::filesystem;
using tputrain::state::EntryState;
using tputrain::state::LedgerEntry;
using tputrain::state::LedgerStore;

namespace {

struct ScratchDir {
  fs::path path;
  ScratchDir() {
    char pattern[] = "/tmp/tputrain-ledger-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~ScratchDir() { fs::remove_all(path); }
};

// Appends `count` entries named <tag>-<i>, one locked update each.
void AppendEntries(LedgerStore& store, const std::string& run, const std::string& tag, int count) {
  for (int i = 0; i < count; ++i) {
    auto status = store.RecordCreating(run, LedgerEntry{.kind = tputrain::state::ResourceKind::kBucket,
                                                        .name = tag + "-" + std::to_string(i),
                                                        .details = {{"padding", std::string(2000, 'x')}}});
    if (!status) _exit(3);
  }
}

}  // namespace

TEST_CASE("an entry goes creating → created → deleted and survives a reload") {
  ScratchDir dir;
  tputrain::core::SystemClock clock;
  LedgerStore store(dir.path.string(), clock);
  REQUIRE(store.RecordCreating("run-1", {.kind = tputrain::state::ResourceKind::kCluster,
                                         .name = "projects/p/locations/l/clusters/c",
                                         .details = {{"location", "l"}}}));
  auto creating = store.Load("run-1");
  REQUIRE(creating);
  REQUIRE(creating->entries.size() == 1);
  CHECK(creating->entries[0].state == EntryState::kCreating);
  CHECK(creating->entries[0].owned);

  REQUIRE(store.RecordState("run-1", tputrain::state::ResourceKind::kCluster, "projects/p/locations/l/clusters/c",
                            EntryState::kCreated, "op-1"));
  auto created = store.Load("run-1");
  REQUIRE(created);
  CHECK(created->entries[0].state == EntryState::kCreated);
  CHECK(created->entries[0].operation == "op-1");
  CHECK(created->Live().size() == 1);

  REQUIRE(store.RecordState("run-1", tputrain::state::ResourceKind::kCluster, "projects/p/locations/l/clusters/c",
                            EntryState::kDeleted));
  auto deleted = store.Load("run-1");
  REQUIRE(deleted);
  CHECK(deleted->Live().empty());
  CHECK(deleted->entries[0].details["location"] == "l");
}

TEST_CASE("a detail holding bytes that are not UTF-8 (a server's words) is recorded, as U+FFFD") {
  ScratchDir dir;
  tputrain::core::SystemClock clock;
  LedgerStore store(dir.path.string(), clock);
  REQUIRE(store.RecordCreating("run-1", {.kind = tputrain::state::ResourceKind::kTpuVm,
                                         .name = "projects/p/locations/l/nodes/n",
                                         .details = {{"message", "stockout \xe0 l'instant"}}}));
  auto loaded = store.Load("run-1");
  REQUIRE(loaded);
  CHECK(loaded->entries[0].details["message"] == "stockout \xef\xbf\xbd l'instant");
}

TEST_CASE("the run is --run, else TPUTRAIN_RUN, else the current run, else a new current run") {
  ScratchDir dir;
  tputrain::core::SystemClock clock;
  LedgerStore store(dir.path.string(), clock);
  tputrain::core::Env env;
  auto none = store.ResolveRun("", env, false);
  REQUIRE(none);
  CHECK(none->empty());
  auto made = store.ResolveRun("", env, true);
  REQUIRE(made);
  CHECK_THAT(*made, Catch::StartsWith("tr-"));
  auto again = store.ResolveRun("", env, true);
  REQUIRE(again);
  CHECK(*again == *made);  // cluster create, submit and cleanup in one CI job share it
  env.Set("TPUTRAIN_RUN", "from-env");
  CHECK(*store.ResolveRun("", env, true) == "from-env");
  CHECK(*store.ResolveRun("explicit", env, true) == "explicit");
  REQUIRE(store.ClearCurrentRun(*made));
  CHECK(store.CurrentRun()->empty());
  auto bad = store.ResolveRun("../etc/passwd", env, true);
  REQUIRE_FALSE(bad);
  CHECK(tputrain::core::IsUsageError(bad.error()));
}

TEST_CASE("a run whose ledger cannot be read cannot record: resolving it to create is refused, naming the file") {
  ScratchDir dir;
  tputrain::core::SystemClock clock;
  LedgerStore store(dir.path.string(), clock);
  tputrain::core::Env env;
  const std::string path = (dir.path / "broken.json").string();
  for (const std::string& text : {std::string(R"({"version": 1, "run_id": "broken", "entr)"), std::string("[1, 2]"),
                                  std::string(R"({"run_id": "broken", "entries": {"kind": "bucket"}})")}) {
    INFO(text);
    std::ofstream(path) << text;
    auto refused = store.ResolveRun("broken", env, /*create=*/true);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().kind == tputrain::core::ErrorKind::kFailedPrecondition);
    CHECK_THAT(refused.error().message, Catch::StartsWith("run ledger " + path + " cannot be read ("));
    CHECK_THAT(refused.error().message, Catch::Contains("mv " + path + " " + path + ".broken"));
    CHECK(refused.error().message.find('\n') == std::string::npos);
    // Reading commands (cleanup, runs show) still resolve it, and report the file themselves.
    CHECK(*store.ResolveRun("broken", env, /*create=*/false) == "broken");
    // Nor does a create that gets that far write past it.
    CHECK_FALSE(store.RecordCreating("broken", {.kind = tputrain::state::ResourceKind::kBucket, .name = "b"}));
  }
  CHECK(*store.ResolveRun("fresh", env, /*create=*/true) == "fresh");  // no file yet: nothing to lose
}

TEST_CASE("runs are listed by id") {
  ScratchDir dir;
  tputrain::core::SystemClock clock;
  LedgerStore store(dir.path.string(), clock);
  REQUIRE(store.RecordCreating("b-run", {.kind = tputrain::state::ResourceKind::kBucket, .name = "b"}));
  REQUIRE(store.RecordCreating("a-run", {.kind = tputrain::state::ResourceKind::kBucket, .name = "a"}));
  auto runs = store.ListRuns();
  REQUIRE(runs);
  CHECK(*runs == std::vector<std::string>{"a-run", "b-run"});
}

TEST_CASE("two processes writing one ledger lose nothing (the lock serialises them)") {
  ScratchDir dir;
  tputrain::core::SystemClock clock;
  constexpr int kEach = 40;
  std::vector<pid_t> children;
  for (const char* tag : {"left", "right"}) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      LedgerStore store(dir.path.string(), clock);
      AppendEntries(store, "shared", tag, kEach);
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  LedgerStore store(dir.path.string(), clock);
  auto ledger = store.Load("shared");
  REQUIRE(ledger);
  CHECK(ledger->entries.size() == 2 * kEach);
}

TEST_CASE("a process killed while writing never leaves the ledger truncated or unparsable") {
  ScratchDir dir;
  tputrain::core::SystemClock clock;
  std::mt19937 random(20261122);
  std::uniform_int_distribution<int> delay_us(0, 20000);
  for (int round = 0; round < 15; ++round) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      LedgerStore store(dir.path.string(), clock);
      AppendEntries(store, "killed", "round" + std::to_string(round), 1000);
      _exit(0);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us(random)));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    LedgerStore store(dir.path.string(), clock);
    auto ledger = store.Load("killed");
    if (!ledger) {
      // Killed before the first write finished: there must be no ledger at all, not a broken one.
      CHECK(ledger.error().kind == tputrain::core::ErrorKind::kNotFound);
    } else {
      CHECK(ledger->run_id == "killed");
    }
  }
}

TEST_CASE("a corrupt ledger is reported, not silently replaced") {
  ScratchDir dir;
  tputrain::core::SystemClock clock;
  LedgerStore store(dir.path.string(), clock);
  std::ofstream(dir.path / "broken.json") << "{\"run_id\": ";
  auto loaded = store.Load("broken");
  REQUIRE_FALSE(loaded);
  CHECK_THAT(loaded.error().message, Catch::Contains("not valid JSON"));
  auto update = store.RecordCreating("broken", {.kind = tputrain::state::ResourceKind::kBucket, .name = "b"});
  CHECK_FALSE(update.has_value());
}

TEST_CASE("threads sharing one store lose no update, with no lock of their own") {
  ScratchDir dir;
  tputrain::core::SystemClock clock;
  LedgerStore store(dir.path.string(), clock);
  constexpr int kThreads = 8;
  constexpr int kEach = 10;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kEach; ++i) {
      REQUIRE(store.RecordCreating("parallel", {.kind = tputrain::state::ResourceKind::kNodePool,
                                                .name = std::to_string(t) + "-" + std::to_string(i)}));
    }
  }
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        std::string name = std::to_string(t) + "-" + std::to_string(i);
        if (!store.RecordState("parallel", tputrain::state::ResourceKind::kNodePool, name, EntryState::kCreated,
                               "op-" + name))
          ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(failures == 0);
  auto ledger = store.Load("parallel");
  REQUIRE(ledger);
  REQUIRE(ledger->entries.size() == kThreads * kEach);
  for (const auto& entry : ledger->entries) {
    INFO(entry.name);
    CHECK(entry.state == EntryState::kCreated);
    CHECK(entry.operation == "op-" + entry.name);
  }
}

TEST_CASE("ready_at and deleted_at: the API's times when given, else now; each set once; kept on reload") {
  ScratchDir dir;
  tputrain::core::SystemClock clock;
  LedgerStore store(dir.path.string(), clock);
  const auto kind = tputrain::state::ResourceKind::kTpuVm;
  const std::string vm = "projects/p/locations/us-east5-a/nodes/vm";
  REQUIRE(store.RecordCreating("run-t", {.kind = kind, .name = vm}));
  REQUIRE(store.RecordState("run-t", kind, vm, EntryState::kCreating, "op-1"));
  CHECK(store.Load("run-t")->entries[0].ready_at.empty());
  REQUIRE(store.RecordState("run-t", kind, vm, EntryState::kCreated, "op-1", "2026-11-26T01:00:00.250Z"));
  // An adoption on a re-run records kCreated again: the first time stands.
  REQUIRE(store.RecordState("run-t", kind, vm, EntryState::kCreated));
  CHECK(store.Load("run-t")->entries[0].ready_at == "2026-11-26T01:00:00.250Z");
  CHECK(store.Load("run-t")->entries[0].deleted_at.empty());
  REQUIRE(store.RecordState("run-t", kind, vm, EntryState::kDeleted));
  auto deleted = store.Load("run-t");
  REQUIRE(deleted);
  CHECK(deleted->entries[0].ready_at == "2026-11-26T01:00:00.250Z");
  CHECK(deleted->entries[0].deleted_at.size() == std::string("2026-11-26T01:00:00.250Z").size());

  // A preempted VM records when tputrain saw it, once; it is still live (cleanup deletes it).
  const std::string spot = "projects/p/locations/us-east5-a/nodes/spot";
  REQUIRE(store.RecordCreating("run-t", {.kind = kind, .name = spot}));
  REQUIRE(store.RecordState("run-t", kind, spot, EntryState::kCreated, "", "2026-11-26T01:00:00.250Z"));
  REQUIRE(store.RecordState("run-t", kind, spot, EntryState::kPreempted, "", "2026-11-26T02:00:00.000Z"));
  REQUIRE(store.RecordState("run-t", kind, spot, EntryState::kPreempted));
  auto preempted = store.Load("run-t");
  REQUIRE(preempted);
  CHECK(preempted->Find(kind, spot)->state == EntryState::kPreempted);
  CHECK(preempted->Find(kind, spot)->preempted_at == "2026-11-26T02:00:00.000Z");
  CHECK(tputrain::state::ToJson(*preempted)["entries"][1]["state"] == "preempted");
  CHECK(preempted->Live().size() == 1);

  // A create that failed never became ready: no billed interval, no deleted_at.
  const std::string failed = "projects/p/locations/us-east5-a/nodes/failed";
  REQUIRE(store.RecordCreating("run-t", {.kind = kind, .name = failed}));
  REQUIRE(store.RecordState("run-t", kind, failed, EntryState::kDeleted));
  auto ledger = store.Load("run-t");
  CHECK(ledger->Find(kind, failed)->ready_at.empty());
  CHECK(ledger->Find(kind, failed)->deleted_at.empty());
  // Absent fields are not written: files stay as earlier releases wrote them.
  CHECK_FALSE(tputrain::state::ToJson(*ledger)["entries"][2].contains("ready_at"));
}
