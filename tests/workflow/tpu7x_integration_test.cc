// Ironwood (TPU7x) and the other TPU shapes against `tputrain emulator start`: tputrain's bodies
// against the real gcloud 528's (workload policy, a pool with --placement-policy, one-host tpu7x,
// ct6e-standard-8t, --reserved TPU VM and queued resource), a tpu7x 4x4x4 pool through its policy
// on a 1.34 cluster cleaned up to nothing, and every refusal before any call.
#include <algorithm>
#include <filesystem>

#include <catch2/catch.hpp>

#include "emulator_env.h"
#include "tputrain/emulator/schema.h"

namespace tputrain::workflow::testing {
namespace {

using nlohmann::json;

const std::string kPinned = "1.34.1-gke.3084001";  // what the emulator's "1.34" is

// The body of the last `method` request whose path ends in `suffix`.
json LastBody(EmulatorEnv& env, const std::string& method, const std::string& suffix) {
  json found;
  for (const auto& entry : env.Requests()) {
    const std::string path = entry.value("path", "");
    if (entry.value("method", "") == method && path.ends_with(suffix)) {
      found = entry["body"].is_string() ? json::parse(entry["body"].get<std::string>()) : entry["body"];
    }
  }
  return found;
}

void Run(EmulatorEnv& env, const std::vector<std::string>& args, bool gcloud = false) {
  auto result = gcloud ? env.Gcloud(args) : env.Tputrain(args);
  INFO((gcloud ? "gcloud " : "tputrain ") << args[0] << " " << args[1] << ": " << result.err);
  REQUIRE(result.exit_code == 0);
}

// gcloud's create body, then tputrain's, each on a fresh emulator after `prepare` (tputrain's
// commands, then gcloud's).
std::pair<json, json> Bodies(EmulatorEnv& env, const std::vector<std::vector<std::string>>& prepare,
                             const std::vector<std::vector<std::string>>& prepare_gcloud,
                             const std::vector<std::string>& gcloud, const std::vector<std::string>& tputrain,
                             const std::string& method, const std::string& suffix) {
  std::pair<json, json> bodies;
  for (int tool = 0; tool < 2; ++tool) {
    env.Reset();
    for (const auto& args : prepare) Run(env, args);
    for (const auto& args : prepare_gcloud) Run(env, args, true);
    Run(env, tool == 0 ? gcloud : tputrain, tool == 0);
    (tool == 0 ? bodies.first : bodies.second) = LastBody(env, method, suffix);
  }
  REQUIRE(!bodies.first.is_null());
  REQUIRE(!bodies.second.is_null());
  return bodies;
}

void CheckValid(const std::string& api, const std::string& schema, const json& body, const std::string& method_id) {
  auto schemas = emulator::SchemaSet::Builtin();
  REQUIRE(schemas);
  auto violation = schemas->Validate(api, schema, body, method_id);
  INFO(body.dump() << "\n" << (violation ? violation->field + ": " + violation->description : ""));
  CHECK(!violation.has_value());
}

const std::vector<std::string> kIronwoodCluster = {
    "cluster", "create", "c", "--location", "us-central1-c", "--cluster-version", "1.34", "--run", "r1"};

TEST_CASE("tputrain's tpu7x, ct6e-standard-8t and --reserved bodies equal gcloud 528's", "[integration]") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  SECTION("the workload policy a tpu7x-128 pool is placed with") {
    auto [gcloud, ours] = Bodies(env, {kIronwoodCluster}, {},
                                 {"compute", "resource-policies", "create", "workload-policy", "c-iw-wp", "--region",
                                  "us-central1", "--type", "HIGH_THROUGHPUT", "--accelerator-topology", "4x4x4"},
                                 {"nodepool", "create", "iw", "--cluster", "c", "--location", "us-central1-c",
                                  "--tpu-type", "tpu7x-128", "--run", "r1"},
                                 "POST", "/regions/us-central1/resourcePolicies");
    CheckValid("compute", "ResourcePolicy", ours, "compute.resourcePolicies.insert");
    // Deliberate: resource policies have no labels, so the run goes in the description.
    CHECK(ours["description"] == "tputrain-run=r1");
    ours.erase("description");
    CHECK(ours == gcloud);
    CHECK(gcloud == json{{"name", "c-iw-wp"},
                         {"region", "us-central1"},
                         {"workloadPolicy", {{"acceleratorTopology", "4x4x4"}, {"type", "HIGH_THROUGHPUT"}}}});
  }
  SECTION("a tpu7x-128 pool on an existing policy: --placement-policy, the version pinned") {
    auto [gcloud, ours] = Bodies(
        env, {kIronwoodCluster},
        {{"compute", "resource-policies", "create", "workload-policy", "my-wp", "--region", "us-central1", "--type",
          "HIGH_THROUGHPUT", "--accelerator-topology", "4x4x4"}},
        {"container", "node-pools", "create", "iw", "--cluster=c", "--location=us-central1-c",
         "--machine-type=tpu7x-standard-4t", "--placement-policy=my-wp", "--num-nodes=16", "--node-version=" + kPinned},
        {"nodepool", "create", "iw", "--cluster", "c", "--location", "us-central1-c", "--tpu-type", "tpu7x-128",
         "--placement-policy", "my-wp", "--run", "r1"},
        "POST", "/nodePools");
    CheckValid("container", "CreateNodePoolRequest", ours, "container.projects.locations.clusters.nodePools.create");
    CHECK(ours["nodePool"]["placementPolicy"] == json{{"policyName", "my-wp"}});
    CHECK(ours["nodePool"]["version"] == kPinned);
    CHECK(ours["nodePool"]["config"]["resourceLabels"] == json{{"tputrain-run", "r1"}});
    ours["nodePool"]["config"].erase("resourceLabels");
    CHECK(ours == gcloud);
    // The user's policy is not the run's: cleanup leaves it.
    Run(env, {"cleanup", "--run", "r1", "--yes"});
    CHECK(env.State()["resourcePolicies"].contains("projects/p/regions/us-central1/resourcePolicies/my-wp"));
  }
  SECTION("one tpu7x host: no placement policy, no topology") {
    auto [gcloud, ours] = Bodies(env, {kIronwoodCluster}, {},
                                 {"container", "node-pools", "create", "one", "--cluster=c", "--location=us-central1-c",
                                  "--machine-type=tpu7x-standard-4t", "--num-nodes=1", "--node-version=" + kPinned},
                                 {"nodepool", "create", "one", "--cluster", "c", "--location", "us-central1-c",
                                  "--tpu-type", "tpu7x-8", "--run", "r1"},
                                 "POST", "/nodePools");
    CHECK_FALSE(ours["nodePool"].contains("placementPolicy"));
    ours["nodePool"]["config"].erase("resourceLabels");
    CHECK(ours == gcloud);
  }
  SECTION("v6e-8 on one ct6e-standard-8t host") {
    auto [gcloud, ours] = Bodies(env, {{"cluster", "create", "c", "--location", "us-east5-b", "--run", "r1"}}, {},
                                 {"container", "node-pools", "create", "v6e8", "--cluster=c", "--location=us-east5-b",
                                  "--machine-type=ct6e-standard-8t", "--num-nodes=1"},
                                 {"nodepool", "create", "v6e8", "--cluster", "c", "--location", "us-east5-b",
                                  "--tpu-type", "v6e-8", "--machine-type", "ct6e-standard-8t", "--run", "r1"},
                                 "POST", "/nodePools");
    CheckValid("container", "CreateNodePoolRequest", ours, "container.projects.locations.clusters.nodePools.create");
    CHECK(ours["nodePool"]["initialNodeCount"] == 1);
    ours["nodePool"]["config"].erase("resourceLabels");
    CHECK(ours == gcloud);
  }
  // Any matching reservation needs one to match: two ct6e-standard-4t VMs in the zone.
  const std::vector<std::string> reservation = {
      "compute", "reservations", "create", "r", "--zone=us-east5-b", "--vm-count=2", "--machine-type=ct6e-standard-4t"};
  SECTION("--reserved TPU VM: schedulingConfig.reserved") {
    auto [gcloud, ours] = Bodies(
        env, {}, {reservation},
        {"compute", "tpus", "tpu-vm", "create", "v", "--zone=us-east5-b", "--accelerator-type=v6e-8",
         "--version=v2-alpha-tpuv6e", "--reserved"},
        {"tpu-vm", "create", "v", "--zone", "us-east5-b", "--accelerator-type", "v6e-8", "--reserved", "--run", "r1"},
        "POST", "/nodes");
    CheckValid("tpu", "Node", ours, "tpu.projects.locations.nodes.create");
    CHECK(ours["schedulingConfig"]["reserved"] == true);
    ours.erase("labels");
    CHECK(ours == gcloud);
  }
  SECTION("--reserved queued resource: reservationName .../reservations/-") {
    auto [gcloud, ours] =
        Bodies(env, {}, {reservation},
               {"compute", "tpus", "queued-resources", "create", "q", "--zone=us-east5-b", "--node-id=q",
                "--accelerator-type=v6e-8", "--runtime-version=v2-alpha-tpuv6e", "--reserved"},
               {"tpu-vm", "create", "q", "--zone", "us-east5-b", "--accelerator-type", "v6e-8", "--queued",
                "--reserved", "--run", "r1"},
               "POST", "/queuedResources");
    CheckValid("tpu", "QueuedResource", ours, "tpu.projects.locations.queuedResources.create");
    CHECK(ours["reservationName"] == "projects/p/locations/us-east5-b/reservations/-");
    ours["tpu"]["nodeSpec"][0]["node"].erase("labels");
    CHECK(ours == gcloud);
  }
}

TEST_CASE("a tpu7x 4x4x4 pool through its workload policy on a 1.34 cluster; cleanup leaves nothing", "[integration]") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  auto created = env.Tputrain({"cluster", "create", "iw", "--location", "us-central1-c", "--cluster-version", "1.34",
                               "--tpu-type", "tpu7x-128", "--run", "r7"});
  INFO(created.err);
  REQUIRE(created.exit_code == 0);
  auto state = env.State();
  const std::string policy_key = "projects/p/regions/us-central1/resourcePolicies/iw-tpu7x-128-wp";
  REQUIRE(state["resourcePolicies"].contains(policy_key));
  CHECK(state["resourcePolicies"][policy_key]["workloadPolicy"] ==
        json{{"acceleratorTopology", "4x4x4"}, {"type", "HIGH_THROUGHPUT"}});
  const json cluster = state["clusters"]["projects/p/locations/us-central1-c/clusters/iw"];
  json pool;
  for (const auto& each : cluster["nodePools"]) {
    if (each["name"] == "tpu7x-128") pool = each;
  }
  REQUIRE(pool.is_object());
  CHECK(pool["status"] == "RUNNING");
  CHECK(pool["placementPolicy"] == json{{"policyName", "iw-tpu7x-128-wp"}});
  CHECK(pool["initialNodeCount"] == 16);
  CHECK(pool["version"] == kPinned);
  // The policy went first: its insert came before the pool's.
  int policy_at = -1, pool_at = -1, index = 0;
  for (const auto& entry : env.Requests()) {
    const std::string path = entry.value("path", "");
    if (entry["method"] == "POST" && path.ends_with("/resourcePolicies")) policy_at = index;
    if (entry["method"] == "POST" && path.ends_with("/nodePools")) pool_at = index;
    ++index;
  }
  CHECK(policy_at >= 0);
  CHECK(policy_at < pool_at);
  auto shown = env.Tputrain({"runs", "show", "--run", "r7", "--format", "json"});
  REQUIRE(shown.exit_code == 0);
  CHECK(shown.out.find("\"workload-policy\"") != std::string::npos);

  // The same command again adopts all three.
  auto again = env.Tputrain({"cluster", "create", "iw", "--location", "us-central1-c", "--cluster-version", "1.34",
                             "--tpu-type", "tpu7x-128", "--run", "r7"});
  INFO(again.err);
  CHECK(again.exit_code == 0);

  auto cleaned = env.Tputrain({"cleanup", "--run", "r7", "--yes"});
  INFO(cleaned.err);
  REQUIRE(cleaned.exit_code == 0);
  state = env.State();
  CHECK(state["clusters"].empty());
  CHECK(state["resourcePolicies"].empty());
  auto leak = env.Tputrain({"cleanup", "--run", "r7", "--dry-run", "--detailed-exitcode"});
  CHECK(leak.exit_code == 0);
}

TEST_CASE("a workload policy of the same name: adopted with the same topology, named field by field otherwise",
          "[integration]") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  Run(env, kIronwoodCluster);
  Run(env,
      {"compute", "resource-policies", "create", "workload-policy", "c-iw-wp", "--region", "us-central1", "--type",
       "HIGH_THROUGHPUT", "--accelerator-topology", "2x2x2"},
      true);
  auto differs = env.Tputrain({"nodepool", "create", "iw", "--cluster", "c", "--location", "us-central1-c",
                               "--tpu-type", "tpu7x-128", "--run", "r1"});
  CHECK(differs.exit_code == 1);
  CHECK(differs.err.find("workloadPolicy.acceleratorTopology: want 4x4x4, have 2x2x2") != std::string::npos);
  CHECK(env.State()["clusters"]["projects/p/locations/us-central1-c/clusters/c"]["nodePools"].size() == 1);

  auto same = env.Tputrain({"nodepool", "create", "small", "--cluster", "c", "--location", "us-central1-c",
                            "--tpu-type", "tpu7x-16", "--run", "r1"});
  INFO(same.err);
  REQUIRE(same.exit_code == 0);
  // Cleanup takes the pool and its own policy, never a policy it found.
  Run(env, {"cleanup", "--run", "r1", "--yes"});
  auto policies = env.State()["resourcePolicies"];
  CHECK(policies.size() == 1);
  CHECK(policies.contains("projects/p/regions/us-central1/resourcePolicies/c-iw-wp"));
}

// Every refusal: exit 2, one line naming the flag, nothing sent, nothing in the ledger.
TEST_CASE("tpu7x and TPU shape refusals come before any call, with nothing ledgered", "[integration]") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"cluster", "create", "iw", "--location", "us-central1-c", "--cluster-version", "1.32", "--tpu-type",
        "tpu7x-128"},
       "--cluster-version: tpu7x needs GKE 1.34.0-gke.2201000 or later, got 1.32"},
      {{"cluster", "create", "iw", "--location", "us-central1-c", "--tpu-type", "tpu7x-128"},
       "--cluster-version: tpu7x needs GKE 1.34.0-gke.2201000 or later"},
      {{"tpu-vm", "create", "v", "--zone", "us-central1-c", "--accelerator-type", "tpu7x-8"},
       "--accelerator-type: the Cloud TPU API does not offer tpu7x; make tpu7x-8 as a GKE node pool"},
      {{"nodepool", "create", "p", "--cluster", "c", "--location", "us-central1-c", "--tpu-type", "tpu7x-128",
        "--num-nodes", "8"},
       "--num-nodes: tpu7x-128 (4x4x4) has 16 hosts, not 8"},
      {{"nodepool", "create", "p", "--cluster", "c", "--location", "us-central1-c", "--tpu-type", "tpu7x-128",
        "--node-version", "1.33.2-gke.1240000"},
       "--node-version: tpu7x needs GKE 1.34.0-gke.2201000 or later"},
      {{"nodepool", "create", "p", "--cluster", "c", "--location", "us-east5-b", "--tpu-type", "v6e-16",
        "--placement-policy", "wp"},
       "--placement-policy: only multi-host tpu7x slices are placed by a workload policy"},
      {{"nodepool", "create", "p", "--cluster", "c", "--location", "europe-west1-b", "--tpu-type", "v6e-8"},
       "--location: v6e-8 is not offered in zone europe-west1-b"},
      {{"cluster", "create", "c", "--location", "us-east5-b", "--cluster-version", "1.34", "--tpu-type", "tpu7x-128"},
       "--location: tpu7x-128 is not offered in zone us-east5-b; tpu7x is in us-central1-c"},
      {{"tpu-vm", "create", "v", "--zone", "europe-west1-b", "--accelerator-type", "v6e-8"},
       "--zone: v6e-8 is not offered in zone europe-west1-b"},
      {{"tpu-vm", "create", "v", "--zone", "us-east5-b", "--accelerator-type", "v6e-8", "--reserved", "--spot"},
       "--reserved: conflicts with --spot"},
  };
  const size_t before = env.Requests().size();
  for (const auto& [args, message] : cases) {
    auto with_run = args;
    with_run.insert(with_run.end(), {"--run", "refused"});
    auto result = env.Tputrain(with_run);
    INFO(args[0] << " " << args[1] << ": " << result.err);
    CHECK(result.exit_code == 2);
    CHECK(result.err.rfind("ERROR: " + message, 0) == 0);
    CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
  }
  CHECK(env.Requests().size() == before);
  CHECK_FALSE(std::filesystem::exists(std::filesystem::path(env.state_dir()) / "refused.json"));
  // Past the catalog, when asked: the create is sent (and the emulator has the chips).
  Run(env, {"tpu-vm", "create", "v", "--zone", "europe-west1-b", "--accelerator-type", "v6e-8", "--skip-zone-check",
            "--async", "--run", "past"});
}

TEST_CASE("a tpu7x pool on a 1.32 cluster: refused after reading the cluster, nothing created or ledgered",
          "[integration]") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  Run(env, {"cluster", "create", "old", "--location", "us-central1-c", "--cluster-version", "1.32", "--run", "r0"});
  const size_t before = env.Requests().size();
  auto refused = env.Tputrain({"nodepool", "create", "iw", "--cluster", "old", "--location", "us-central1-c",
                               "--tpu-type", "tpu7x-128", "--run", "r2"});
  INFO(refused.err);
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.rfind("ERROR: --cluster: old runs GKE 1.32.4-gke.1415000; tpu7x needs 1.34.0-gke.2201000 or later",
                          0) == 0);
  CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
  const auto requests = env.Requests();
  REQUIRE(requests.size() == before + 1);  // the read of the cluster's version, and nothing else
  CHECK(requests.back()["method"] == "GET");
  CHECK(env.State()["resourcePolicies"].empty());
  auto shown = env.Tputrain({"runs", "show", "--run", "r2", "--format", "json"});
  CHECK((shown.out.find("\"entries\": []") != std::string::npos || shown.exit_code != 0));
}

}  // namespace
}  // namespace tputrain::workflow::testing
