// The randomized, seeded proof that cleanup leaves nothing behind. Each schedule, derived from
// the seed: an emulator injecting 429/503 at random, slow operations, one stuck create and one
// stocked-out pool, and v5p chips in two zones at random (none, or enough for one VM); a
// seed-sized provisioning sequence (a cluster with two TPU slice pools, a TPU VM failing over
// between the two zones, a bucket, a service account with a project role) in one run, SIGKILLed at a random
// point; every ledger file must then parse; `tputrain cleanup` (under the same faults) is run
// until it exits 0; the emulator must then hold none of the run's resources.
//
// TPUTRAIN_CHAOS_SCHEDULES (default 5) and TPUTRAIN_CHAOS_SEED choose the schedules; the ctest
// test cleanup_chaos_long (label long) runs 120 of them.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "emulator_env.h"
#include "tputrain/state/ledger.h"

namespace tputrain::workflow::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

struct Schedule {
  int index = 0;
  uint64_t seed = 0;
  std::string faults;
  std::string capacity;  // --capacity: per-zone stockouts the TPU VM fails over from
  std::string op_latency;
  std::chrono::milliseconds kill_after{0};
  std::string run_id;
};

Schedule MakeSchedule(uint64_t base_seed, int index) {
  std::mt19937_64 random(base_seed * 1'000'003 + static_cast<uint64_t>(index));
  auto pick = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(random); };
  Schedule schedule;
  schedule.index = index;
  schedule.seed = random();
  schedule.run_id = "chaos-" + std::to_string(index);
  char probability[16];
  std::snprintf(probability, sizeof probability, "%.2f", pick(5, 20) / 100.0);
  static const char* kStuck[] = {"clusters.create=stuck@nth:1", "nodePools.create=stuck@nth:1",
                                 "nodePools.create=stuck@nth:2", "nodes.create=stuck@nth:1"};
  schedule.faults = std::string("*=") + (pick(0, 1) ? "429" : "503") + "@p:" + probability + "," + kStuck[pick(0, 3)] +
                    ",nodePools.create=stockout@nth:" + std::to_string(pick(1, 3));
  schedule.capacity =
      "us-east5-a/v5p=" + std::to_string(pick(0, 1) * 4) + ",us-east5-c/v5p=" + std::to_string(pick(0, 1) * 4);
  schedule.op_latency = std::to_string(pick(50, 600)) + "ms";
  schedule.kill_after = std::chrono::milliseconds(pick(0, 8000));
  return schedule;
}

// Runs `args` with the schedule's ledger; SIGKILLs it once `deadline` passes. False when killed.
bool RunUntil(EmulatorEnv& env, std::vector<std::string> args, std::chrono::steady_clock::time_point deadline) {
  ProcessOptions options;
  options.argv = {tputrain::testing::TputrainBinary()};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.argv.insert(options.argv.end(), {"--state-dir", env.state_dir()});
  options.env = env.Environment();
  tputrain::testing::ScopedProcess process(options);
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  if (left > 0ms && tputrain::testing::WaitFor([&] { return !process.running(); }, left)) return true;
  if (!process.running()) return true;
  process.Kill();
  return false;
}

// Every ledger file in the state directory parses (a kill mid-write leaves the old or the new).
std::vector<std::string> UnparsableLedgers(const std::string& dir) {
  std::vector<std::string> bad;
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(dir, ec)) {
    std::string name = item.path().filename().string();
    if (name.size() <= 5 || !name.ends_with(".json")) continue;
    std::ifstream in(item.path());
    std::stringstream text;
    text << in.rdbuf();
    json parsed = json::parse(text.str(), nullptr, false);
    if (parsed.is_discarded() || !state::LedgerFromJson(parsed)) bad.push_back(name + ": " + text.str().substr(0, 200));
  }
  return bad;
}

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool Labelled(const json& resource, const std::string& field, const std::string& run) {
  return resource.is_object() && resource.contains(field) && resource[field].is_object() &&
         resource[field].value("tputrain-run", "") == run;
}

// A member of `parent`, or an empty JSON value of the same shape when absent.
json Member(const json& parent, const char* key, const json& empty) {
  return parent.is_object() && parent.contains(key) ? parent[key] : empty;
}

// What the emulator still holds of the run, by label and by name.
std::vector<std::string> Leftovers(const json& state, const Schedule& schedule, const std::string& prefix) {
  std::vector<std::string> left;
  const json clusters = Member(state, "clusters", json::object());
  for (const auto& [key, cluster] : clusters.items()) {
    if (Labelled(cluster, "resourceLabels", schedule.run_id) || EndsWith(key, "/clusters/" + prefix + "-c")) {
      left.push_back("cluster " + key);
    }
    const json pools = Member(cluster, "nodePools", json::array());
    for (const auto& pool : pools) {
      if (Labelled(Member(pool, "config", json::object()), "resourceLabels", schedule.run_id)) {
        left.push_back("nodepool " + key + "/" + pool.value("name", ""));
      }
    }
  }
  const json nodes = Member(state, "tpuNodes", json::object());
  for (const auto& [key, node] : nodes.items()) {
    if (Labelled(node, "labels", schedule.run_id) || EndsWith(key, "/nodes/" + prefix + "-vm"))
      left.push_back("tpu-vm " + key);
  }
  const json buckets = Member(state, "buckets", json::object());
  for (const auto& [key, bucket] : buckets.items()) {
    if (Labelled(bucket, "labels", schedule.run_id) || key == prefix + "-b") left.push_back("bucket " + key);
  }
  const std::string account = "chaos-sa-" + prefix + "@p.iam.gserviceaccount.com";
  const json accounts = Member(state, "serviceAccounts", json::object());
  if (accounts.contains(account)) left.push_back("service-account " + account);
  const json policies = Member(state, "policies", json::object());
  for (const auto& [resource, policy] : policies.items()) {
    const json bindings = Member(policy, "bindings", json::array());
    for (const auto& binding : bindings) {
      const json members = Member(binding, "members", json::array());
      for (const auto& member : members) {
        if (member.get<std::string>().find(account) != std::string::npos) {
          left.push_back("iam-member " + resource + " " + binding.value("role", "") + " " + member.get<std::string>());
        }
      }
    }
  }
  return left;
}

struct Tally {
  int schedules = 0;
  int killed = 0;
  int leaks = 0;
  int cleanup_attempts = 0;
  std::vector<std::string> problems;
};

void RunSchedule(const Schedule& schedule, Tally& tally) {
  const std::string prefix = "x" + std::to_string(schedule.index);
  // Free ports are picked, then bound: with schedules in parallel, a lost race means another try.
  std::unique_ptr<EmulatorEnv> started;
  for (int attempt = 0; attempt < 3 && !(started && started->ready()); ++attempt) {
    started = std::make_unique<EmulatorEnv>(
        std::vector<std::string>{"--faults", schedule.faults, "--seed", std::to_string(schedule.seed), "--stuck-for",
                                 "3s", "--capacity", schedule.capacity},
        schedule.op_latency);
  }
  EmulatorEnv& env = *started;
  std::string where = "schedule " + std::to_string(schedule.index) + " (faults " + schedule.faults + ", capacity " +
                      schedule.capacity + ", op latency " + schedule.op_latency + ", kill after " +
                      std::to_string(schedule.kill_after.count()) + "ms)";
  if (!env.ready()) {
    tally.problems.push_back(where + ": the emulator did not start");
    return;
  }
  // The TPU VM first: its failover between zones is then reached before most kills.
  const std::vector<std::vector<std::string>> sequence = {
      {"tpu-vm", "create", prefix + "-vm", "--zones", "us-east5-a,us-east5-c", "--accelerator-type", "v5p-8"},
      {"cluster", "create", prefix + "-c", "--location", "us-east5-b", "--workload-identity", "--tpu-type", "v6e-16",
       "--num-slices", "2"},
      {"bucket", "create", "gs://" + prefix + "-b"},
      {"iam", "service-account", "create", "chaos-sa-" + prefix, "--role", "roles/storage.objectUser"},
  };
  auto deadline = std::chrono::steady_clock::now() + schedule.kill_after;
  for (auto args : sequence) {
    args.insert(args.end(), {"--run", schedule.run_id, "--quiet"});
    if (!RunUntil(env, args, deadline)) {
      ++tally.killed;
      break;
    }
  }
  for (const auto& bad : UnparsableLedgers(env.state_dir())) tally.problems.push_back(where + ": ledger " + bad);

  bool clean = false;
  std::string last;
  for (int attempt = 0; attempt < 8 && !clean; ++attempt) {
    ++tally.cleanup_attempts;
    auto result = env.Tputrain({"cleanup", "--run", schedule.run_id, "--yes"});
    // Killed before its first record, the run has no ledger: --run names a run there is none of.
    const bool never_recorded = !fs::exists(env.state_dir() + "/" + schedule.run_id + ".json") &&
                                result.exit_code == 2 && result.err.find("--run: no run '") != std::string::npos;
    clean = result.exit_code == 0 || never_recorded;
    last = "exit " + std::to_string(result.exit_code) + ": " + result.err.substr(0, 600);
    for (const auto& bad : UnparsableLedgers(env.state_dir())) tally.problems.push_back(where + ": ledger " + bad);
  }
  if (!clean) tally.problems.push_back(where + ": cleanup never exited 0; last " + last);
  // The label scan, under the same faults, must agree that nothing of the run is left. A kill
  // before the first record leaves no state directory; a named one must exist (a typo guard), as
  // it would on any machine that recorded a run before.
  fs::create_directories(env.state_dir());
  auto scan = env.Tputrain({"cleanup", "--scan", "--run", schedule.run_id, "--format", "json"});
  json scanned = json::parse(scan.out, nullptr, false);
  if (scan.exit_code != 0 || scanned.is_discarded() || !scanned.value("leaked", json::array()).empty()) {
    tally.problems.push_back(where + ": cleanup --scan after cleanup: exit " + std::to_string(scan.exit_code) + " " +
                             scan.out.substr(0, 400) + scan.err.substr(0, 400));
  }
  auto left = Leftovers(env.State(), schedule, prefix);
  tally.leaks += static_cast<int>(left.size());
  for (const auto& item : left) tally.problems.push_back(where + ": leaked " + item);
  ++tally.schedules;
}

int EnvInt(const char* name, int fallback) {
  const char* text = std::getenv(name);  // test-only knob; the product reads its Env snapshot
  return text != nullptr && *text != '\0' ? std::atoi(text) : fallback;
}

TEST_CASE(
    "cleanup after a SIGKILL at a random point, under 429/503, slow and stuck operations and stockouts, "
    "leaves nothing",
    "[integration]") {
  const int count = EnvInt("TPUTRAIN_CHAOS_SCHEDULES", 5);
  const auto seed = static_cast<uint64_t>(EnvInt("TPUTRAIN_CHAOS_SEED", 20261123));
  // Schedules mostly wait on operations, so several run at once, each with its own emulator.
  const int parallel = std::max(1, EnvInt("TPUTRAIN_CHAOS_PARALLEL", 4));
  Tally tally;
  std::mutex mutex;
  std::atomic<int> next{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < parallel; ++w) {
    workers.emplace_back([&] {
      for (int i = next++; i < count; i = next++) {
        Tally one;
        RunSchedule(MakeSchedule(seed, i), one);
        std::lock_guard lock(mutex);
        tally.schedules += one.schedules;
        tally.killed += one.killed;
        tally.leaks += one.leaks;
        tally.cleanup_attempts += one.cleanup_attempts;
        tally.problems.insert(tally.problems.end(), one.problems.begin(), one.problems.end());
      }
    });
  }
  for (auto& worker : workers) worker.join();
  std::cout << "cleanup chaos (seed " << seed << "): schedules run: " << tally.schedules
            << ", leaks found: " << tally.leaks << " (killed mid-sequence: " << tally.killed
            << ", cleanup runs: " << tally.cleanup_attempts << ")" << std::endl;
  std::string problems;
  for (const auto& problem : tally.problems) problems += problem + "\n";
  INFO(problems);
  CHECK(tally.schedules == count);
  CHECK(tally.problems.empty());
  CHECK(tally.leaks == 0);
}

}  // namespace
}  // namespace tputrain::workflow::testing
