// Capacity choices against `tputrain emulator start` (which runs out of chips as Google does):
// tputrain's pool bodies for Spot, a reservation and flex-start against gcloud's, and choices
// refused before any call.
#include <catch2/catch.hpp>
#include <tuple>

#include "emulator_env.h"

namespace tputrain::workflow::testing {
namespace {

using nlohmann::json;

json LastPoolBody(EmulatorEnv& env) {
  json found;
  for (const auto& entry : env.Requests()) {
    const std::string path = entry.value("path", "");
    if (entry.value("method", "") == "POST" && path.size() > 10 && path.substr(path.size() - 10) == "/nodePools") {
      found = entry["body"].is_string() ? json::parse(entry["body"].get<std::string>()) : entry["body"];
    }
  }
  return found;
}

size_t CountRequests(EmulatorEnv& env) { return env.Requests().size(); }

const std::vector<std::string> kCluster = {"cluster", "create", "c", "--location", "us-east5-a", "--run", "r1"};
const std::vector<std::string> kReservation = {
    "compute", "reservations", "create", "r1", "--zone=us-east5-a", "--vm-count=4", "--machine-type=ct6e-standard-4t"};

// gcloud's pool body, then tputrain's, each on a fresh emulator holding cluster c (and r1).
std::pair<json, json> Bodies(EmulatorEnv& env, const std::vector<std::string>& gcloud_flags,
                             const std::vector<std::string>& tputrain_flags) {
  std::pair<json, json> bodies;
  for (int tool = 0; tool < 2; ++tool) {
    env.Reset();
    REQUIRE(env.Tputrain(kCluster).exit_code == 0);
    REQUIRE(env.Gcloud(kReservation).exit_code == 0);
    std::vector<std::string> args;
    if (tool == 0) {
      args = {"container",
              "node-pools",
              "create",
              "tpu",
              "--cluster=c",
              "--location=us-east5-a",
              "--machine-type=ct6e-standard-4t",
              "--tpu-topology=4x4"};
    } else {
      args = {"nodepool",   "create",     "tpu",    "--cluster", "c", "--location",
              "us-east5-a", "--tpu-type", "v6e-16", "--run",     "r1"};
    }
    const auto& extra = tool == 0 ? gcloud_flags : tputrain_flags;
    args.insert(args.end(), extra.begin(), extra.end());
    auto result = tool == 0 ? env.Gcloud(args) : env.Tputrain(args);
    INFO((tool == 0 ? "gcloud: " : "tputrain: ") << result.err);
    REQUIRE(result.exit_code == 0);
    (tool == 0 ? bodies.first : bodies.second) = LastPoolBody(env);
  }
  // The deliberate difference: tputrain labels what the run made.
  CHECK(bodies.second["nodePool"]["config"]["resourceLabels"] == json{{"tputrain-run", "r1"}});
  bodies.second["nodePool"]["config"].erase("resourceLabels");
  return bodies;
}

TEST_CASE("Spot, reservation and flex-start pools send gcloud's bodies", "[integration]") {
  EmulatorEnv env({"--capacity", "us-east5-a/v6e=64"});
  REQUIRE(env.ready());
  SECTION("spot") {
    auto [gcloud, ours] = Bodies(env, {"--num-nodes=4", "--spot"}, {"--capacity", "spot"});
    CHECK(ours == gcloud);
  }
  SECTION("a specific reservation, verbatim") {
    auto [gcloud, ours] =
        Bodies(env, {"--num-nodes=4", "--reservation-affinity=specific", "--reservation=projects/p/reservations/r1"},
               {"--reservation", "projects/p/reservations/r1"});
    CHECK(ours == gcloud);
  }
  SECTION("flex-start, as xpk's --flex asks gcloud for it") {
    auto [gcloud, ours] = Bodies(
        env,
        {"--flex-start", "--enable-autoscaling", "--num-nodes=0", "--min-nodes=0", "--max-nodes=4",
         "--location-policy=ANY", "--reservation-affinity=none", "--no-enable-autorepair", "--max-run-duration=86400s"},
        {"--capacity", "flex-start", "--max-run-duration", "24h"});
    CHECK(ours == gcloud);
  }
}

TEST_CASE("an ambiguous or impossible capacity choice is one usage line, before any call", "[integration]") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  const std::vector<std::string> pool = {"nodepool",   "create",     "tpu",        "--cluster", "c",
                                         "--location", "us-east5-a", "--tpu-type", "v6e-16"};
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--spot", "--reservation", "r1"}, "--spot: conflicts with --reservation"},
      {{"--capacity", "flex-start", "--enable-queued-provisioning"}, "--enable-queued-provisioning: GKE queues"},
      {{"--capacity", "reservation"}, "--capacity reservation: name the reservation with --reservation NAME"},
      {{"--reservation", "projects/p/zones/us-east5-a/reservations/r1"}, "--reservation: expected a reservation name"},
      {{"--capacity", "spot", "--max-run-duration", "1h"}, "--max-run-duration: only with --capacity flex-start"},
  };
  const size_t before = CountRequests(env);
  for (const auto& [flags, message] : cases) {
    auto args = pool;
    args.insert(args.end(), flags.begin(), flags.end());
    auto result = env.Tputrain(args);
    INFO(flags.front() << ": " << result.err);
    CHECK(result.exit_code == 2);
    CHECK(result.err.find(message) != std::string::npos);
    CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
  }
  CHECK(CountRequests(env) == before);
}

}  // namespace
}  // namespace tputrain::workflow::testing

namespace tputrain::workflow::testing {
namespace {

json LedgerOf(EmulatorEnv& env, const std::string& run) {
  auto shown = env.Tputrain({"runs", "show", "--run", run, "--format", "json"});
  REQUIRE(shown.exit_code == 0);
  return json::parse(shown.out);
}

// The ledger entry whose name ends in `suffix`.
json EntryEndingIn(const json& ledger, const std::string& suffix) {
  for (const auto& entry : ledger["entries"]) {
    const std::string name = entry.value("name", "");
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      return entry;
  }
  return json();
}

std::vector<std::string> Results(const json& attempts) {
  std::vector<std::string> results;
  for (const auto& attempt : attempts) results.push_back(attempt.value("zone", "") + "=" + attempt.value("result", ""));
  return results;
}

bool EmulatorEmpty(EmulatorEnv& env) {
  const json state = env.State();
  for (const char* kind : {"tpuNodes", "queuedResources"}) {
    if (state.contains(kind) && !state[kind].empty()) return false;
  }
  return true;
}

TEST_CASE("a TPU VM fails over from a zone with no v6e to the next; the ledger shows both attempts", "[integration]") {
  EmulatorEnv env({"--capacity", "us-east5-a/v6e=0,us-east5-b/v6e=8"});
  REQUIRE(env.ready());
  auto made = env.Tputrain({"tpu-vm", "create", "t1", "--zones", "us-east5-a,us-east5-b", "--accelerator-type", "v6e-8",
                            "--run", "fo", "--format", "json"});
  INFO(made.err);
  REQUIRE(made.exit_code == 0);
  CHECK(made.err.find("us-east5-a: no capacity (stockout)") != std::string::npos);
  const json printed = json::parse(made.out);
  INFO(printed.dump());
  const json node = env.State()["tpuNodes"]["projects/p/locations/us-east5-b/nodes/t1"];
  CHECK(node["state"] == "READY");
  const json ledger = LedgerOf(env, "fo");
  const json tried = EntryEndingIn(ledger, "locations/us-east5-a/nodes/t1");
  const json created = EntryEndingIn(ledger, "locations/us-east5-b/nodes/t1");
  CHECK(tried["state"] == "deleted");
  CHECK(Results(tried["details"]["attempts"]) == std::vector<std::string>{"us-east5-a=stockout"});
  CHECK(created["state"] == "created");
  CHECK(Results(created["details"]["attempts"]) ==
        std::vector<std::string>{"us-east5-a=stockout", "us-east5-b=created"});
  CHECK(printed.dump().find("\"us-east5-a\"") != std::string::npos);
  REQUIRE(env.Tputrain({"cleanup", "--run", "fo", "--yes"}).exit_code == 0);
  CHECK(EmulatorEmpty(env));
}

TEST_CASE("a quota error skips the rest of its region; no capacity anywhere is one line listing each zone",
          "[integration]") {
  EmulatorEnv env({"--quota", "us-east5/v6e=0", "--capacity", "europe-west4-a/v6e=0"});
  REQUIRE(env.ready());
  auto failed = env.Tputrain({"tpu-vm", "create", "t1", "--zones", "us-east5-a,us-east5-b,europe-west4-a",
                              "--accelerator-type", "v6e-8", "--run", "q"});
  INFO(failed.err);
  CHECK(failed.exit_code == 1);
  CHECK(failed.err.find("quota is per region, so the other zones of us-east5 are skipped") != std::string::npos);
  CHECK(failed.err.find("no capacity in any zone (us-east5-a: quota, us-east5-b: skipped, europe-west4-a: "
                        "stockout)") != std::string::npos);
  // The quota refusal came before the second zone of its region was asked.
  for (const auto& entry : env.Requests()) {
    CHECK(entry.value("path", "").find("us-east5-b") == std::string::npos);
  }
  CHECK(EmulatorEmpty(env));
}

TEST_CASE("--retry-until-up goes round the zones until --timeout, then says so", "[integration]") {
  EmulatorEnv env({"--capacity", "us-east5-a/v6e=0,us-east5-b/v6e=0"});
  REQUIRE(env.ready());
  auto failed = env.Tputrain({"tpu-vm", "create", "t1", "--zones", "us-east5-a,us-east5-b", "--accelerator-type",
                              "v6e-8", "--retry-until-up", "--retry-gap", "1s", "--timeout", "12s", "--run", "ru"});
  INFO(failed.err);
  CHECK(failed.exit_code == 1);
  CHECK(failed.err.find("no capacity in any zone") != std::string::npos);
  int creates = 0;
  for (const auto& entry : env.Requests()) {
    if (entry.value("method", "") == "POST" && entry.value("path", "").find("/nodes") != std::string::npos) ++creates;
  }
  // At least two rounds of two zones: a round (two creates that fail, two deletes) took 1-2 s
  // here, and over 3 s on a loaded machine, where a 4 s timeout saw one round only.
  CHECK(creates >= 4);
  CHECK(EmulatorEmpty(env));
}

TEST_CASE("a node pool fails over within its cluster's region; the stocked-out pool is deleted first",
          "[integration]") {
  // GKE goes on retrying the stocked-out pool for a while, the cluster busy meanwhile.
  EmulatorEnv env({"--capacity", "us-east5-a/v6e=0,us-east5-b/v6e=16", "--stockout-retry", "3s"});
  REQUIRE(env.ready());
  REQUIRE(env.Tputrain({"cluster", "create", "c", "--location", "us-east5", "--run", "np"}).exit_code == 0);
  auto made = env.Tputrain({"nodepool", "create", "tpu", "--cluster", "c", "--location", "us-east5", "--tpu-type",
                            "v6e-16", "--zones", "us-east5-a,us-east5-b", "--run", "np"});
  INFO(made.err);
  REQUIRE(made.exit_code == 0);
  const json cluster = env.State()["clusters"]["projects/p/locations/us-east5/clusters/c"];
  int tpu_pools = 0;
  for (const auto& pool : cluster["nodePools"]) {
    if (pool["name"] != "tpu") continue;
    ++tpu_pools;
    CHECK(pool["status"] == "RUNNING");
    CHECK(pool["locations"] == json::array({"us-east5-b"}));
  }
  CHECK(tpu_pools == 1);
  const json entry = EntryEndingIn(LedgerOf(env, "np"), "nodePools/tpu");
  CHECK(entry["state"] == "created");
  CHECK(Results(entry["details"]["attempts"]) == std::vector<std::string>{"us-east5-a=stockout", "us-east5-b=created"});
  auto outside = env.Tputrain({"nodepool", "create", "x", "--cluster", "c", "--location", "us-east5", "--tpu-type",
                               "v6e-16", "--zones", "us-east5-a,europe-west4-a", "--run", "np"});
  CHECK(outside.exit_code == 2);
  CHECK(outside.err.find("--zones: europe-west4-a is not in the cluster's region us-east5") != std::string::npos);
  REQUIRE(env.Tputrain({"cleanup", "--run", "np", "--yes"}).exit_code == 0);
  CHECK(env.State()["clusters"].empty());
}

TEST_CASE(
    "a pool a stockout left in ERROR is `failed` in the ledger: billed nothing, never adopted, deleted by cleanup",
    "[integration]") {
  EmulatorEnv env({"--capacity", "us-east5-a/v6e=0"});
  REQUIRE(env.ready());
  REQUIRE(env.Tputrain({"cluster", "create", "c", "--location", "us-east5-a", "--run", "fl"}).exit_code == 0);
  const std::vector<std::string> create = {"nodepool",   "create",     "tpu",    "--cluster", "c", "--location",
                                           "us-east5-a", "--tpu-type", "v6e-16", "--run",     "fl"};
  auto made = env.Tputrain(create);
  INFO(made.err);
  REQUIRE(made.exit_code == 1);
  CHECK(made.err.find("stockout") != std::string::npos);
  json entry = EntryEndingIn(LedgerOf(env, "fl"), "nodePools/tpu");
  CHECK(entry["state"] == "failed");
  CHECK_FALSE(entry.contains("ready_at"));  // it never ran: no spend
  const json shown = LedgerOf(env, "fl");
  for (const auto& resource : shown["spend"]["resources"]) {
    if (resource["kind"] != "nodepool") continue;
    CHECK(resource["hours"] == 0);
    CHECK(resource["per_hour_now"] == 0);
  }
  // A re-run meets the ERROR pool and does not adopt it.
  auto again = env.Tputrain(create);
  CHECK(again.exit_code != 0);
  CHECK(again.err.find("not usable") != std::string::npos);
  CHECK(EntryEndingIn(LedgerOf(env, "fl"), "nodePools/tpu")["state"] == "failed");
  REQUIRE(env.Tputrain({"cleanup", "--run", "fl", "--yes"}).exit_code == 0);
  CHECK(env.State()["clusters"].empty());
}

}  // namespace
}  // namespace tputrain::workflow::testing

namespace tputrain::workflow::testing {
namespace {

int PoolCreates(EmulatorEnv& env) {
  int creates = 0;
  for (const auto& entry : env.Requests()) {
    const std::string path = entry.value("path", "");
    if (entry.value("method", "") == "POST" && path.find("/nodePools") != std::string::npos) ++creates;
  }
  return creates;
}

TEST_CASE("a reservation that cannot hold the slice is refused in one line before any create", "[integration]") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  REQUIRE(env.Tputrain({"cluster", "create", "c", "--location", "us-east5-a", "--run", "rv"}).exit_code == 0);
  REQUIRE(env.Gcloud({"compute", "reservations", "create", "small", "--zone=us-east5-a", "--vm-count=2",
                      "--machine-type=ct6e-standard-4t"})
              .exit_code == 0);
  REQUIRE(env.Gcloud({"compute", "reservations", "create", "elsewhere", "--zone=us-east5-b", "--vm-count=4",
                      "--machine-type=ct6e-standard-4t"})
              .exit_code == 0);
  REQUIRE(env.Gcloud({"compute", "reservations", "create", "v5p", "--zone=us-east5-a", "--vm-count=4",
                      "--machine-type=ct5p-hightpu-4t"})
              .exit_code == 0);
  const std::vector<std::string> pool = {"nodepool",   "create",     "tpu",    "--cluster", "c",  "--location",
                                         "us-east5-a", "--tpu-type", "v6e-16", "--run",     "rv", "--reservation"};
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"small", "--reservation: small in us-east5-a has 2 free of 2 ct6e-standard-4t hosts; the slice needs 4"},
      {"elsewhere", "--reservation: elsewhere is in us-east5-b, not the pool's zone us-east5-a"},
      {"v5p", "--reservation: v5p reserves ct5p-hightpu-4t, not the slice's ct6e-standard-4t"},
      {"projects/p/reservations/none", "--reservation: no reservation none in project p"},
  };
  for (const auto& [reservation, message] : cases) {
    auto args = pool;
    args.push_back(reservation);
    auto refused = env.Tputrain(args);
    INFO(refused.err);
    CHECK(refused.exit_code == 1);
    CHECK(refused.err.find(message) != std::string::npos);
  }
  CHECK(PoolCreates(env) == 0);
  // Enough free hosts: created, and the reservation counts them.
  REQUIRE(env.Gcloud({"compute", "reservations", "create", "big", "--zone=us-east5-a", "--vm-count=4",
                      "--machine-type=ct6e-standard-4t"})
              .exit_code == 0);
  auto args = pool;
  args.push_back("big");
  auto made = env.Tputrain(args);
  INFO(made.err);
  CHECK(made.exit_code == 0);
  auto count = env.Gcloud({"compute", "reservations", "describe", "big", "--zone=us-east5-a",
                           "--format=value(specificReservation.inUseCount)"});
  CHECK(count.out == "4\n");
  REQUIRE(env.Tputrain({"cleanup", "--run", "rv", "--yes"}).exit_code == 0);
}

}  // namespace
}  // namespace tputrain::workflow::testing

namespace tputrain::workflow::testing {
namespace {

std::string QueuedState(EmulatorEnv& env, const std::string& zone, const std::string& id) {
  const json state = env.State();
  const std::string key = "projects/p/locations/" + zone + "/queuedResources/" + id;
  if (!state.contains("queuedResources") || !state["queuedResources"].contains(key)) return "";
  return state["queuedResources"][key]["state"].value("state", "");
}

json LastQueuedBody(EmulatorEnv& env) {
  json found;
  for (const auto& entry : env.Requests()) {
    const std::string path = entry.value("path", "");
    if (entry.value("method", "") == "POST" && path.find("/queuedResources") != std::string::npos) {
      found = entry["body"].is_string() ? json::parse(entry["body"].get<std::string>()) : entry["body"];
    }
  }
  return found;
}

TEST_CASE("a queued TPU VM sends gcloud's queued-resource body, with Spot and a valid-until", "[integration]") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  auto g = env.Gcloud({"compute", "tpus", "queued-resources", "create", "q", "--zone=us-east5-a", "--node-id=q",
                       "--accelerator-type=v6e-8", "--runtime-version=v2-alpha-tpuv6e", "--spot",
                       "--valid-until-duration=3600s"});
  INFO(g.err);
  REQUIRE(g.exit_code == 0);
  json gcloud = LastQueuedBody(env);
  env.Reset();
  auto t = env.Tputrain({"tpu-vm", "create", "q", "--zone", "us-east5-a", "--accelerator-type", "v6e-8", "--queued",
                         "--spot", "--valid-until", "1h", "--run", "qb"});
  INFO(t.err);
  REQUIRE(t.exit_code == 0);
  json ours = LastQueuedBody(env);
  // The deliberate difference: the run label on the node.
  auto& node = ours["tpu"]["nodeSpec"][0]["node"];
  CHECK(node["labels"] == json{{"tputrain-run", "qb"}});
  node.erase("labels");
  CHECK(ours == gcloud);
  CHECK(env.State()["tpuNodes"]["projects/p/locations/us-east5-a/nodes/q"]["state"] == "READY");
  REQUIRE(env.Tputrain({"cleanup", "--run", "qb", "--yes"}).exit_code == 0);
  CHECK(EmulatorEmpty(env));
}

TEST_CASE("a queued TPU VM whose deadline passes with no capacity is FAILED in one line", "[integration]") {
  EmulatorEnv env({"--capacity", "us-east5-a/v6e=0"});
  REQUIRE(env.ready());
  auto failed = env.Tputrain({"tpu-vm", "create", "late", "--zone", "us-east5-a", "--accelerator-type", "v6e-8",
                              "--queued", "--valid-until", "2s", "--run", "ql"});
  INFO(failed.err);
  CHECK(failed.exit_code == 1);
  CHECK(failed.err.find("WAITING_FOR_RESOURCES") != std::string::npos);
  CHECK(failed.err.find("FAILED") != std::string::npos);
  // The queued resource stays (FAILED, holding nothing) until cleanup, which deletes it in any state.
  CHECK(QueuedState(env, "us-east5-a", "late") == "FAILED");
  REQUIRE(env.Tputrain({"cleanup", "--run", "ql", "--yes"}).exit_code == 0);
  CHECK(EmulatorEmpty(env));
}

// A regional cluster's pool without node locations has nodes in each of the cluster's zones; a
// reservation holds VMs of one. The check once passed for a reservation anywhere in the region,
// and GKE then waited for capacity in the zones the reservation is not in.
TEST_CASE("a regional pool names a reservation only with the reservation's zone as its node location",
          "[integration]") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  REQUIRE(env.Tputrain({"cluster", "create", "rc", "--location", "us-east5", "--run", "rr"}).exit_code == 0);
  REQUIRE(env.Gcloud({"compute", "reservations", "create", "r", "--zone=us-east5-b", "--vm-count=4",
                      "--machine-type=ct6e-standard-4t"})
              .exit_code == 0);
  const std::vector<std::string> pool = {"nodepool",   "create",        "tpu",        "--cluster", "rc",
                                         "--location", "us-east5",      "--tpu-type", "v6e-16",    "--run",
                                         "rr",         "--reservation", "r"};
  auto refused = env.Tputrain(pool);
  INFO(refused.err);
  CHECK(refused.exit_code == 1);
  CHECK(refused.err.find("--reservation: pool tpu of regional cluster rc would have nodes in each of its zones "
                         "(us-east5-a, us-east5-b, us-east5-c), and a reservation holds VMs of one zone: name the "
                         "reservation's zone with --node-locations ZONE") != std::string::npos);
  CHECK(PoolCreates(env) == 0);
  auto args = pool;
  args.insert(args.end(), {"--node-locations", "us-east5-b"});
  auto made = env.Tputrain(args);
  INFO(made.err);
  CHECK(made.exit_code == 0);
  REQUIRE(env.Tputrain({"cleanup", "--run", "rr", "--yes"}).exit_code == 0);
}

// As the GKE path does: a TPU VM queued on a reservation that cannot hold it would wait in
// WAITING_FOR_RESOURCES for ever, so it is refused first; and its queue ends on its own.
TEST_CASE("tpu-vm create --reservation checks the reservation first, and its queue has an end", "[integration]") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  for (const auto& [name, zone, count, machine] : {std::tuple{"small", "us-east5-a", "2", "ct6e-standard-4t"},
                                                   {"elsewhere", "us-east5-b", "4", "ct6e-standard-4t"},
                                                   {"v5p", "us-east5-a", "4", "ct5p-hightpu-4t"},
                                                   {"big", "us-east5-a", "4", "ct6e-standard-4t"}}) {
    REQUIRE(env.Gcloud({"compute", "reservations", "create", name, std::string("--zone=") + zone,
                        std::string("--vm-count=") + count, std::string("--machine-type=") + machine})
                .exit_code == 0);
  }
  const std::vector<std::string> create = {"tpu-vm", "create", "rq", "--zone",       "us-east5-a", "--accelerator-type",
                                           "v6e-16", "--run",  "tr", "--reservation"};
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"small", "--reservation: small in us-east5-a has 2 free of 2 ct6e-standard-4t hosts; the slice needs 4"},
      {"elsewhere",
       "--reservation: elsewhere is in us-east5-b, not the queued resource's zone us-east5-a (a reservation holds "
       "VMs of one zone)"},
      {"v5p", "--reservation: v5p reserves ct5p-hightpu-4t, not the slice's ct6e-standard-4t"},
      {"none", "--reservation: no reservation none in project p"},
  };
  for (const auto& [reservation, message] : cases) {
    auto args = create;
    args.push_back(reservation);
    auto refused = env.Tputrain(args);
    INFO(refused.err);
    CHECK(refused.exit_code == 1);
    CHECK(refused.err.find(message) != std::string::npos);
  }
  CHECK(LastQueuedBody(env).is_null());  // nothing was queued
  auto args = create;
  args.push_back("big");
  auto made = env.Tputrain(args);
  INFO(made.err);
  REQUIRE(made.exit_code == 0);
  CHECK(made.err.find("reservation big: 4 hosts free in us-east5-a, 4 needed") != std::string::npos);
  const json body = LastQueuedBody(env);
  CHECK(body["reservationName"] == "projects/p/locations/us-east5-a/reservations/big");
  CHECK(body["queueingPolicy"]["validUntilDuration"] == "3600s");
  CHECK(env.State()["tpuNodes"]["projects/p/locations/us-east5-a/nodes/rq"]["state"] == "READY");
  // A re-run finds its queued resource holding the reservation, and adopts it.
  auto again = env.Tputrain(args);
  INFO(again.err);
  CHECK(again.exit_code == 0);
  REQUIRE(env.Tputrain({"cleanup", "--run", "tr", "--yes"}).exit_code == 0);
  CHECK(EmulatorEmpty(env));
}

TEST_CASE("a queued TPU VM waits while the zone is full and is READY when capacity comes", "[integration]") {
  EmulatorEnv env({"--capacity", "us-east5-a/v6e=0"});
  REQUIRE(env.ready());
  ProcessOptions options;
  options.argv = {tputrain::testing::TputrainBinary(),
                  "tpu-vm",
                  "create",
                  "w",
                  "--zone",
                  "us-east5-a",
                  "--accelerator-type",
                  "v6e-8",
                  "--queued",
                  "--run",
                  "qw",
                  "--state-dir",
                  env.state_dir()};
  options.env = env.Environment();
  tputrain::testing::ScopedProcess waiting(options);
  // tputrain has seen it wait (its progress says so) before the chips come.
  REQUIRE(tputrain::testing::WaitFor(
      [&] { return waiting.ReadErr().find("queued-resource w: WAITING_FOR_RESOURCES") != std::string::npos; },
      std::chrono::seconds(60)));
  CHECK(QueuedState(env, "us-east5-a", "w") == "WAITING_FOR_RESOURCES");
  CHECK(waiting.running());
  http::CurlTransport transport;
  http::Request freed;
  freed.method = "POST";
  // The emulator's base URL, as tputrain is pointed at it.
  freed.url = env.Environment()["CLOUDSDK_API_ENDPOINT_OVERRIDES_TPU"].value_or("") + "_emulator/capacity";
  freed.body = R"({"chips": {"us-east5-a/v6e": 8}})";
  auto response = transport.Send(freed);
  REQUIRE(response);
  REQUIRE(response->status == 200);
  REQUIRE(tputrain::testing::WaitFor([&] { return !waiting.running(); }, std::chrono::seconds(120)));
  INFO(waiting.ReadErr());
  CHECK(waiting.Stop() == 0);
  CHECK(waiting.ReadErr().find("queued-resource w: WAITING_FOR_RESOURCES") != std::string::npos);
  CHECK(env.State()["tpuNodes"]["projects/p/locations/us-east5-a/nodes/w"]["state"] == "READY");
  REQUIRE(env.Tputrain({"cleanup", "--run", "qw", "--yes"}).exit_code == 0);
  CHECK(EmulatorEmpty(env));
}

}  // namespace
}  // namespace tputrain::workflow::testing

namespace tputrain::workflow::testing {
namespace {

TEST_CASE("--zones auto tries the zones that offer the type, as the TPU API lists them", "[integration]") {
  EmulatorEnv env({"--capacity", "us-central1-b/v6e=0,us-east1-d/v6e=0"});
  REQUIRE(env.ready());
  // gcloud reads the same list.
  auto listed = env.Gcloud(
      {"compute", "tpus", "tpu-vm", "accelerator-types", "list", "--zone=us-east5-a", "--format=value(type)"});
  INFO(listed.err);
  REQUIRE(listed.exit_code == 0);
  CHECK(listed.out.find("v6e-8\n") != std::string::npos);
  CHECK(listed.out.find("v5p-8\n") != std::string::npos);
  // v4 is offered only in us-central2-b (v5e is listed in us-east5-a: catalog OfferingZonesOf).
  CHECK(listed.out.find("v4-8\n") == std::string::npos);

  auto made = env.Tputrain({"tpu-vm", "create", "a1", "--zones", "auto", "--accelerator-type", "v6e-8", "--run", "auto",
                            "--format", "json"});
  INFO(made.err);
  REQUIRE(made.exit_code == 0);
  CHECK(made.err.find("offering v6e-8: us-central1-b, us-east1-d, us-east5-a, us-east5-b, europe-west4-a") !=
        std::string::npos);
  const json created = EntryEndingIn(LedgerOf(env, "auto"), "locations/us-east5-a/nodes/a1");
  CHECK(Results(created["details"]["attempts"]) ==
        std::vector<std::string>{"us-central1-b=stockout", "us-east1-d=stockout", "us-east5-a=created"});
  REQUIRE(env.Tputrain({"cleanup", "--run", "auto", "--yes"}).exit_code == 0);
  CHECK(EmulatorEmpty(env));
}

}  // namespace
}  // namespace tputrain::workflow::testing
