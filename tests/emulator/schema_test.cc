#include <catch2/catch.hpp>

#include "tputrain/emulator/schema.h"

namespace tputrain::emulator {
namespace {

using nlohmann::json;

const SchemaSet& Schemas() {
  static const SchemaSet schemas = *SchemaSet::Builtin();
  return schemas;
}

TEST_CASE("the embedded discovery subset holds the request schemas the emulator validates") {
  CHECK(Schemas().Has("container", "CreateClusterRequest"));
  CHECK(Schemas().Has("container", "NodePool"));
  CHECK(Schemas().Has("tpu", "Node"));
  CHECK(Schemas().Has("storage", "Bucket"));
  CHECK(Schemas().Has("iam", "CreateServiceAccountRequest"));
  CHECK(Schemas().Has("cloudresourcemanager", "SetIamPolicyRequest"));
  CHECK_FALSE(Schemas().Has("container", "NoSuchSchema"));
}

TEST_CASE("gcloud's captured node-pool body validates") {
  auto body = json::parse(R"({"nodePool": {"config": {"advancedMachineFeatures": {"threadsPerCore": "1"},
      "machineType": "ct6e-standard-4t", "oauthScopes": ["https://www.googleapis.com/auth/cloud-platform"]},
      "initialNodeCount": 4, "management": {"autoRepair": true, "autoUpgrade": true}, "name": "v6e-16",
      "placementPolicy": {"tpuTopology": "4x4", "type": "COMPACT"}, "upgradeSettings": {"maxSurge": 1}},
      "parent": "projects/p/locations/us-east5-b/clusters/ray-tpu"})");
  CHECK_FALSE(Schemas().Validate("container", "CreateNodePoolRequest", body, "container.x.create"));
}

TEST_CASE("an unknown field is named with its snake_case path, as Google's front end does") {
  auto body = json::parse(R"({"cluster": {"name": "c", "nodePools": [{"name": "p", "bogusField": 1}]}})");
  auto violation = Schemas().Validate("container", "CreateClusterRequest", body, "");
  REQUIRE(violation);
  CHECK(violation->description ==
        "Invalid JSON payload received. Unknown name \"bogusField\" at 'cluster.node_pools[0]': Cannot find field.");
}

TEST_CASE("wrong JSON types are rejected; int64 accepts a string or a number") {
  auto wrong = json::parse(R"({"cluster": {"name": "c", "initialNodeCount": "three"}})");
  auto violation = Schemas().Validate("container", "CreateClusterRequest", wrong, "");
  REQUIRE(violation);
  CHECK(violation->field == "cluster.initial_node_count");
  CHECK(violation->description.find("TYPE_INT32") != std::string::npos);

  auto flag = json::parse(R"({"cluster": {"name": "c", "autopilot": {"enabled": "yes"}}})");
  CHECK(Schemas().Validate("container", "CreateClusterRequest", flag, ""));

  auto as_number =
      json::parse(R"({"nodePool": {"name": "p", "config": {"advancedMachineFeatures": {"threadsPerCore": 2}}}})");
  CHECK_FALSE(Schemas().Validate("container", "CreateNodePoolRequest", as_number, ""));
  auto not_a_number =
      json::parse(R"({"nodePool": {"name": "p", "config": {"advancedMachineFeatures": {"threadsPerCore": "two"}}}})");
  CHECK(Schemas().Validate("container", "CreateNodePoolRequest", not_a_number, ""));
}

TEST_CASE("enum values come from the discovery document") {
  auto body = json::parse(R"({"nodePool": {"name": "p", "placementPolicy": {"type": "SPREAD"}}})");
  auto violation = Schemas().Validate("container", "CreateNodePoolRequest", body, "");
  REQUIRE(violation);
  CHECK(violation->field == "node_pool.placement_policy.type");
  CHECK(violation->description.find("COMPACT") != std::string::npos);
}

TEST_CASE("required fields: Cloud TPU's runtimeVersion, storage's bucket name only on insert") {
  auto node = json::parse(R"({"acceleratorType": "v5p-8"})");
  auto violation = Schemas().Validate("tpu", "Node", node, "tpu.projects.locations.nodes.create");
  REQUIRE(violation);
  CHECK(violation->field == "runtime_version");

  auto bucket = json::parse(R"({"location": "us-east5"})");
  CHECK(Schemas().Validate("storage", "Bucket", bucket, "storage.buckets.insert"));
  CHECK_FALSE(Schemas().Validate("storage", "Bucket", bucket, "storage.buckets.patch"));
}

TEST_CASE("maps check their values; null means the default") {
  auto labels = json::parse(R"({"acceleratorType": "v5p-8", "runtimeVersion": "v", "labels": {"a": 1}})");
  CHECK(Schemas().Validate("tpu", "Node", labels, ""));
  auto nulls = json::parse(R"({"acceleratorType": null, "runtimeVersion": "v", "labels": {"a": "b"}})");
  CHECK_FALSE(Schemas().Validate("tpu", "Node", nulls, ""));
}

TEST_CASE("SnakeCase turns JSON names into proto field names") {
  CHECK(SnakeCase("initialNodeCount") == "initial_node_count");
  CHECK(SnakeCase("name") == "name");
}

}  // namespace
}  // namespace tputrain::emulator
