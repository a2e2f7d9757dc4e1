// Each seed tutorial's provisioning, as tputrain commands against `tputrain emulator start`,
// checked through the emulator's state and the run ledger.
#include <catch2/catch.hpp>

#include "emulator_env.h"

namespace tputrain::workflow::testing {
namespace {

using nlohmann::json;

void Ok(const std::vector<std::string>& args, const ProcessResult& result) {
  std::string command = "tputrain";
  for (const auto& arg : args) command += " " + arg;
  INFO(command << "\nstdout: " << result.out << "\nstderr: " << result.err);
  REQUIRE(result.exit_code == 0);
}

ProcessResult Run(EmulatorEnv& env, const std::vector<std::string>& args) {
  auto result = env.Tputrain(args);
  Ok(args, result);
  return result;
}

const json* FindKey(const json& section, const std::string& suffix) {
  for (const auto& [key, value] : section.items()) {
    if (key.size() >= suffix.size() && key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return &value;
    }
  }
  return nullptr;
}

json Ledger(EmulatorEnv& env, const std::string& run) {
  auto shown = env.Tputrain({"runs", "show", "--run", run, "--format", "json"});
  INFO(shown.err);
  REQUIRE(shown.exit_code == 0);
  return json::parse(shown.out);
}

std::string LedgerState(const json& ledger, const std::string& kind, const std::string& suffix) {
  for (const auto& entry : ledger["entries"]) {
    std::string name = entry.value("name", "");
    if (entry.value("kind", "") == kind && name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return entry.value("state", "");
    }
  }
  return "(absent)";
}

TEST_CASE(
    "seed 000/001: Standard cluster with Ray, GCS FUSE and workload identity, a v6e 4x4 pool, a bucket and the KSA "
    "binding",
    "[integration]") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  Run(env, {"cluster", "create", "ray-tpu", "--location", "us-east5-b", "--ray-operator", "--gcs-fuse",
            "--workload-identity", "--machine-type", "n1-standard-16", "--run", "seed001"});
  Run(env, {"nodepool", "create", "v6e-16", "--cluster", "ray-tpu", "--location", "us-east5-b", "--machine-type",
            "ct6e-standard-4t", "--threads-per-core", "1", "--tpu-topology", "4x4", "--run", "seed001"});
  Run(env, {"bucket", "create", "gs://seed001-ckpt", "--run", "seed001"});
  auto bound = Run(env, {"iam", "bind-workload-identity", "--ksa", "default/ray-ksa", "--bucket", "seed001-ckpt",
                         "--role", "roles/storage.objectUser", "--run", "seed001", "--format", "json"});

  json state = env.State();
  const json* cluster = FindKey(state["clusters"], "/clusters/ray-tpu");
  REQUIRE(cluster != nullptr);
  CHECK((*cluster)["addonsConfig"]["rayOperatorConfig"]["enabled"] == true);
  CHECK((*cluster)["addonsConfig"]["gcsFuseCsiDriverConfig"]["enabled"] == true);
  CHECK((*cluster)["workloadIdentityConfig"]["workloadPool"] == "p.svc.id.goog");
  CHECK((*cluster)["resourceLabels"]["tputrain-run"] == "seed001");
  json pool;
  for (const auto& item : (*cluster)["nodePools"]) {
    if (item["name"] == "v6e-16") pool = item;
  }
  REQUIRE(pool.is_object());
  CHECK(pool["placementPolicy"]["tpuTopology"] == "4x4");
  CHECK(pool["initialNodeCount"] == 4);
  CHECK(pool["config"]["resourceLabels"]["tputrain-run"] == "seed001");
  CHECK(state["buckets"].contains("seed001-ckpt"));
  std::string principal = json::parse(bound.out)["resources"][0]["details"]["member"];
  CHECK(principal.rfind("principal://iam.googleapis.com/projects/", 0) == 0);
  CHECK(principal.find("/workloadIdentityPools/p.svc.id.goog/subject/ns/default/sa/ray-ksa") != std::string::npos);
  CHECK(state["policies"].dump().find(principal) != std::string::npos);

  json ledger = Ledger(env, "seed001");
  CHECK(LedgerState(ledger, "cluster", "/clusters/ray-tpu") == "created");
  CHECK(LedgerState(ledger, "nodepool", "/nodePools/v6e-16") == "created");
  CHECK(LedgerState(ledger, "bucket", "seed001-ckpt") == "created");
  CHECK(LedgerState(ledger, "iam-member", "sa/ray-ksa") == "created");

  SECTION("creating it again adopts what exists; a different shape is refused, naming the field") {
    auto again = env.Tputrain({"nodepool", "create", "v6e-16", "--cluster", "ray-tpu", "--location", "us-east5-b",
                               "--tpu-type", "v6e-16", "--threads-per-core", "1", "--run", "seed001"});
    INFO(again.err);
    CHECK(again.exit_code == 0);
    CHECK(again.out.find("resumed") != std::string::npos);  // this run's, made by its first command
    auto different = env.Tputrain({"nodepool", "create", "v6e-16", "--cluster", "ray-tpu", "--location", "us-east5-b",
                                   "--tpu-type", "v6e-32", "--run", "seed001"});
    CHECK(different.exit_code == 1);
    CHECK(different.err.find("placementPolicy.tpuTopology: want 4x8, have 4x4") != std::string::npos);
  }
}

TEST_CASE(
    "seed 002: regional cluster, a v6e 4x4 COMPACT pool with GCE_METADATA, two v6e 2x4 pools, the service account and "
    "its bindings",
    "[integration]") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  Run(env, {"cluster", "create", "jetstream", "--location", "us-east5", "--cluster-version", "1.32.4-gke.1415000",
            "--scopes", "cloud-platform", "--machine-type", "n2-standard-32", "--run", "seed002"});
  Run(env, {"nodepool",
            "create",
            "multihost-np",
            "--location",
            "us-east5",
            "--node-locations",
            "us-east5-b",
            "--cluster",
            "jetstream",
            "--machine-type",
            "ct6e-standard-4t",
            "--num-nodes",
            "4",
            "--tpu-topology",
            "4x4",
            "--scopes",
            "cloud-platform",
            "--placement-type",
            "COMPACT",
            "--workload-metadata",
            "GCE_METADATA",
            "--run",
            "seed002"});
  Run(env, {"nodepool", "create", "disagg", "--location", "us-east5", "--node-locations", "us-east5-b", "--cluster",
            "jetstream", "--tpu-type", "v6e-8", "--num-slices", "2", "--run", "seed002"});
  Run(env, {"iam", "service-account", "create", "jetstream-pathways", "--role", "roles/storage.objectUser", "--run",
            "seed002"});
  Run(env, {"iam", "bind-workload-identity", "--ksa", "default/jetstream-sa", "--gsa",
            "jetstream-pathways@p.iam.gserviceaccount.com", "--run", "seed002"});

  json state = env.State();
  const json* cluster = FindKey(state["clusters"], "/locations/us-east5/clusters/jetstream");
  REQUIRE(cluster != nullptr);
  std::map<std::string, json> pools;
  for (const auto& item : (*cluster)["nodePools"]) pools[item["name"]] = item;
  REQUIRE(pools.count("multihost-np") == 1);
  CHECK(pools["multihost-np"]["placementPolicy"]["type"] == "COMPACT");
  CHECK(pools["multihost-np"]["config"]["workloadMetadataConfig"]["mode"] == "GCE_METADATA");
  for (const char* name : {"disagg-0", "disagg-1"}) {
    REQUIRE(pools.count(name) == 1);
    CHECK(pools[name]["placementPolicy"]["tpuTopology"] == "2x4");
    CHECK(pools[name]["initialNodeCount"] == 2);
  }
  std::string policies = state["policies"].dump();
  CHECK(policies.find("serviceAccount:jetstream-pathways@p.iam.gserviceaccount.com") != std::string::npos);
  CHECK(policies.find("serviceAccount:p.svc.id.goog[default/jetstream-sa]") != std::string::npos);
  CHECK(policies.find("roles/iam.workloadIdentityUser") != std::string::npos);
  json ledger = Ledger(env, "seed002");
  CHECK(LedgerState(ledger, "service-account", "jetstream-pathways@p.iam.gserviceaccount.com") == "created");
  CHECK(LedgerState(ledger, "nodepool", "/nodePools/disagg-1") == "created");
}

TEST_CASE("seed 003: two v5e 4x8 pools of 8 nodes, a bucket, a service account and its bindings", "[integration]") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  Run(env, {"cluster", "create", "saxml", "--location", "us-west4", "--workload-identity", "--run", "seed003"});
  Run(env, {"nodepool", "create", "tpu", "--cluster", "saxml", "--location", "us-west4", "--machine-type",
            "ct5lp-hightpu-4t", "--tpu-topology", "4x8", "--num-slices", "2", "--run", "seed003"});
  Run(env, {"bucket", "create", "seed003-sax", "--default-storage-class", "STANDARD", "--bucket-location", "us-west4",
            "--run", "seed003"});
  Run(env, {"iam", "service-account", "create", "sax-sa", "--role", "roles/storage.admin", "--run", "seed003"});
  Run(env, {"iam", "bind-workload-identity", "--ksa", "default/sax-sa", "--gsa", "sax-sa@p.iam.gserviceaccount.com",
            "--run", "seed003"});
  json state = env.State();
  const json* cluster = FindKey(state["clusters"], "/clusters/saxml");
  REQUIRE(cluster != nullptr);
  int v5e_pools = 0;
  for (const auto& pool : (*cluster)["nodePools"]) {
    if (pool["config"]["machineType"] == "ct5lp-hightpu-4t") {
      ++v5e_pools;
      CHECK(pool["initialNodeCount"] == 8);
      CHECK(pool["placementPolicy"]["tpuTopology"] == "4x8");
    }
  }
  CHECK(v5e_pools == 2);
  CHECK(state["buckets"].contains("seed003-sax"));
  CHECK(state["policies"].dump().find("serviceAccount:p.svc.id.goog[default/sax-sa]") != std::string::npos);
}

TEST_CASE("seed 004: TPU VMs v5p-8 and v6e-16", "[integration]") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  Run(env, {"tpu-vm", "create", "v5p-node", "--zone", "us-east5-a", "--accelerator-type", "v5p-8", "--version",
            "v2-alpha-tpuv5", "--run", "seed004"});
  Run(env, {"tpu-vm", "create", "v6e-node", "--zone", "us-east5-b", "--accelerator-type", "v6e-16", "--metadata",
            "purpose=seed004", "--run", "seed004"});
  json state = env.State();
  const json* v5p = FindKey(state["tpuNodes"], "/nodes/v5p-node");
  const json* v6e = FindKey(state["tpuNodes"], "/nodes/v6e-node");
  REQUIRE(v5p != nullptr);
  REQUIRE(v6e != nullptr);
  CHECK((*v5p)["acceleratorType"] == "v5p-8");
  CHECK((*v6e)["acceleratorType"] == "v6e-16");
  CHECK((*v6e)["runtimeVersion"] == "v2-alpha-tpuv6e");
  CHECK((*v6e)["labels"]["tputrain-run"] == "seed004");
  auto listed = env.Tputrain({"tpu-vm", "list", "--zone", "us-east5-b", "--format", "json"}, false);
  INFO(listed.err);
  REQUIRE(listed.exit_code == 0);
  CHECK(json::parse(listed.out).size() == 1);
  // Without a terminal a delete needs --yes (gcloud likewise refuses an unattended delete).
  auto unattended = env.Tputrain({"tpu-vm", "delete", "v6e-node", "--zone", "us-east5-b", "--run", "seed004"});
  CHECK(unattended.exit_code == 2);
  CHECK(unattended.err.find("tpu-vm delete: there is no terminal to confirm on; add --yes") != std::string::npos);
  Run(env, {"tpu-vm", "delete", "v6e-node", "--zone", "us-east5-b", "--run", "seed004", "--yes"});
  CHECK(FindKey(env.State()["tpuNodes"], "/nodes/v6e-node") == nullptr);
  CHECK(LedgerState(Ledger(env, "seed004"), "tpu-vm", "/nodes/v6e-node") == "deleted");
}

}  // namespace
}  // namespace tputrain::workflow::testing
