// The NAME and LOCATION a table shows of each kind of ledger entry, from real ledger names.
#include <catch2/catch.hpp>

#include "output/resource_cells.h"

namespace tputrain::cli {
namespace {

using nlohmann::json;
using state::ResourceKind;

struct Case {
  ResourceKind kind;
  std::string key;
  json details;
  std::string name;
  std::string location;
};

TEST_CASE("each kind shows its short name and where it is; --format wide the full name") {
  const std::string cluster = "projects/ml-platform-training-prod/locations/us-central1/clusters/ray-tpu";
  const std::vector<Case> cases = {
      {ResourceKind::kCluster, cluster, json::object(), "ray-tpu", "us-central1"},
      {ResourceKind::kNodePool, cluster + "/nodePools/tpu-v6e-16", json::object(), "ray-tpu/tpu-v6e-16", "us-central1"},
      {ResourceKind::kTpuVm, "projects/p/locations/us-east5-b/nodes/tpu-vm-1", json::object(), "tpu-vm-1",
       "us-east5-b"},
      {ResourceKind::kQueuedResource, "projects/p/locations/us-east5-a/queuedResources/qr-2x-v5p", json::object(),
       "qr-2x-v5p", "us-east5-a"},
      {ResourceKind::kRepository, "projects/p/locations/us-east5/repositories/tputrain", json::object(), "tputrain",
       "us-east5"},
      {ResourceKind::kFirewallRule, "projects/p/global/firewalls/tputrain-iap-ray-default", json::object(),
       "tputrain-iap-ray-default", "global"},
      {ResourceKind::kWorkloadPolicy, "projects/p/regions/us-central1/resourcePolicies/iw-tpu7x-128-wp", json::object(),
       "iw-tpu7x-128-wp", "us-central1"},
      {ResourceKind::kBucket, "ml-platform-training-prod-checkpoints", json::object(),
       "ml-platform-training-prod-checkpoints", "-"},
      {ResourceKind::kServiceAccount, "maxtext@ml-platform-training-prod.iam.gserviceaccount.com", json::object(),
       "maxtext@ml-platform-training-prod", "global"},
      {ResourceKind::kIamMember,
       "bucket/ckpt|roles/storage.objectUser|principal://iam.googleapis.com/projects/123456789012/locations/global/"
       "workloadIdentityPools/ml-platform-training-prod.svc.id.goog/subject/ns/default/sa/ray-ksa",
       json::object(), "storage.objectUser for ksa default/ray-ksa", "bucket ckpt"},
      {ResourceKind::kIamMember,
       "service-account/sax@p.iam.gserviceaccount.com|roles/iam.workloadIdentityUser|"
       "serviceAccount:p.svc.id.goog[default/sax-sa]",
       {{"target", "service-account"},
        {"resource", "sax@p.iam.gserviceaccount.com"},
        {"role", "roles/iam.workloadIdentityUser"},
        {"member", "serviceAccount:p.svc.id.goog[default/sax-sa]"}},
       "iam.workloadIdentityUser for ksa default/sax-sa",
       "service-account sax@p"},
      {ResourceKind::kIamMember, "project/p|roles/logging.logWriter|serviceAccount:maxtext@p.iam.gserviceaccount.com",
       json::object(), "logging.logWriter for maxtext@p", "project p"},
      {ResourceKind::kK8sObject, "gke:" + cluster + "|ray.io/v1|RayCluster|default|ray", json::object(),
       "RayCluster default/ray", "ray-tpu"},
      {ResourceKind::kK8sObject, "kubeconfig:kind-tputrain|v1|Namespace||ml", json::object(), "Namespace ml",
       "kind-tputrain"},
      {ResourceKind::kServedModel, "gke:" + cluster + "|default|sax-http-svc:8888|/sax/test/spmd", json::object(),
       "/sax/test/spmd", "ray-tpu"},
      {ResourceKind::kRayJob,
       "raysubmit_7Qm2xkS1c9TtBd4W",
       {{"address", "http://127.0.0.1:8265"}},
       "raysubmit_7Qm2xkS1c9TtBd4W",
       "127.0.0.1:8265"},
      {ResourceKind::kRayJob,
       "tputrain-llama3-8b-20261120-091502",
       {{"access", {{"gke_cluster", cluster}}}, {"raycluster", "ray"}, {"namespace", "default"}},
       "tputrain-llama3-8b-20261120-091502",
       "ray-tpu"},
      {ResourceKind::kRayJob,
       "raysubmit_x",
       {{"tpu_vm", {{"node", "tpu-vm-1"}}}, {"via", "iap"}},
       "raysubmit_x",
       "tpu-vm-1"},
      {ResourceKind::kBuild,
       "gs://p_cloudbuild/source/1763630102.123-4f.tgz",
       {{"image", "us-east5-docker.pkg.dev/p/tputrain/ray-maxtext:latest"}, {"location", "global"}},
       "ray-maxtext:latest",
       "global"},
      {ResourceKind::kUnknown, "something|later", json::object(), "something|later", "-"},
  };
  for (const auto& c : cases) {
    INFO(c.key);
    auto cells = CellsOf(c.kind, c.key, c.details, false);
    CHECK(cells.name == c.name);
    CHECK(cells.location == c.location);
    auto wide = CellsOf(c.kind, c.key, c.details, true);
    CHECK(wide.name == c.key);
    CHECK(wide.location == c.location);
  }
}

TEST_CASE("a bucket's location is shown when known; an operation by its last segment") {
  CHECK(CellsOf(ResourceKind::kBucket, "b", {{"location", "US"}}, false).location == "US");
  CHECK(OperationCell("projects/p/locations/us-east5-b/operations/operation-1763630500-abc", false) ==
        "operation-1763630500-abc");
  CHECK(OperationCell("operation-1763630102000-5f3a9c1e", false) == "operation-1763630102000-5f3a9c1e");
  CHECK(OperationCell("projects/p/locations/us-east5-b/operations/op", true) ==
        "projects/p/locations/us-east5-b/operations/op");
}

TEST_CASE("an outcome row: KIND, NAME, LOCATION, RESULT") {
  workflow::Outcome outcome{ResourceKind::kNodePool, "tpu-v6e-16",
                            "projects/p/locations/us-central1/clusters/ray-tpu/nodePools/tpu-v6e-16",
                            workflow::OutcomeAction::kDeleted};
  const auto rows = OutcomeRows({outcome}, false);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0] == std::vector<std::string>{"nodepool", "ray-tpu/tpu-v6e-16", "us-central1",
                                            std::string(workflow::OutcomeActionPhrase(outcome.action))});
}

}  // namespace
}  // namespace tputrain::cli
