#include <catch2/catch.hpp>

#include "tputrain/workflow/cleanup.h"

namespace tputrain::workflow {
namespace {

using state::EntryState;
using state::LedgerEntry;

LedgerEntry Entry(std::string kind, std::string name, EntryState state = EntryState::kCreated, bool owned = true,
                  nlohmann::json details = nlohmann::json::object()) {
  LedgerEntry entry;
  entry.kind = std::move(kind);
  entry.name = std::move(name);
  entry.state = state;
  entry.owned = owned;
  entry.details = std::move(details);
  return entry;
}

const std::string kCluster = "projects/p/locations/us-east5-b/clusters/c";

nlohmann::json PoolDetails(const std::string& cluster) {
  return {{"project", "p"}, {"location", "us-east5-b"}, {"cluster", cluster}, {"nodepool", "np"}};
}

std::vector<std::string> Kinds(const std::vector<PlannedDelete>& items) {
  std::vector<std::string> kinds;
  for (const auto& item : items) kinds.push_back(item.entry.kind + ":" + item.entry.name);
  return kinds;
}

TEST_CASE("the cleanup plan deletes workloads, then machines, then storage and identities") {
  state::Ledger ledger;
  ledger.run_id = "r";
  ledger.entries = {Entry("service-account", "sa@p.iam.gserviceaccount.com"),
                    Entry("bucket", "b"),
                    Entry("iam-member", "project/p|roles/x|serviceAccount:sa"),
                    Entry("cluster", kCluster),
                    Entry("nodepool", kCluster + "/nodePools/np", EntryState::kCreated, true, PoolDetails("c")),
                    Entry("tpu-vm", "projects/p/locations/z/nodes/vm"),
                    Entry("k8s-object", "kubeconfig:ctx|ray.io/v1|RayCluster|default|rc"),
                    Entry("ray-job", "job-1"),
                    Entry("bucket", "deleted-b", EntryState::kDeleted)};
  auto plan = PlanCleanup(ledger, false);
  CHECK(plan.run_id == "r");
  CHECK(Kinds(plan.deletes) ==
        std::vector<std::string>{"ray-job:job-1", "k8s-object:kubeconfig:ctx|ray.io/v1|RayCluster|default|rc",
                                 "nodepool:" + kCluster + "/nodePools/np", "tpu-vm:projects/p/locations/z/nodes/vm",
                                 "cluster:" + kCluster, "bucket:b",
                                 "iam-member:project/p|roles/x|serviceAccount:sa",
                                 "service-account:sa@p.iam.gserviceaccount.com"});
  CHECK(plan.deletes[2].action == "goes with its cluster");
  CHECK(plan.deletes[4].action == "delete");
  CHECK(plan.kept.empty());
}

TEST_CASE("within a tier the newest entry goes first") {
  state::Ledger ledger;
  ledger.entries = {Entry("bucket", "first"), Entry("bucket", "second"), Entry("bucket", "third")};
  CHECK(Kinds(PlanCleanup(ledger, false).deletes) ==
        std::vector<std::string>{"bucket:third", "bucket:second", "bucket:first"});
}

TEST_CASE("adopted resources are kept unless forced; their pools are then deleted one by one") {
  state::Ledger ledger;
  ledger.entries = {Entry("cluster", kCluster, EntryState::kCreated, /*owned=*/false),
                    Entry("nodepool", kCluster + "/nodePools/np", EntryState::kCreated, true, PoolDetails("c"))};
  auto plan = PlanCleanup(ledger, false);
  REQUIRE(plan.deletes.size() == 1);
  CHECK(plan.deletes[0].entry.kind == "nodepool");
  CHECK(plan.deletes[0].action == "delete");  // its cluster stays, so the pool is deleted itself
  REQUIRE(plan.kept.size() == 1);
  CHECK(plan.kept[0].entry.kind == "cluster");
  CHECK(plan.kept[0].action.find("--force") != std::string::npos);

  auto forced = PlanCleanup(ledger, true);
  CHECK(forced.kept.empty());
  CHECK(Kinds(forced.deletes) ==
        std::vector<std::string>{"nodepool:" + kCluster + "/nodePools/np", "cluster:" + kCluster});
  CHECK(forced.deletes[0].action == "goes with its cluster");
}

TEST_CASE("a create or delete left running is waited for first") {
  state::Ledger ledger;
  auto creating = Entry("tpu-vm", "projects/p/locations/z/nodes/vm", EntryState::kCreating);
  creating.operation = "projects/p/locations/z/operations/op-1";
  auto deleting = Entry("cluster", kCluster, EntryState::kDeleting);
  deleting.operation = "operation-7";
  auto never_sent = Entry("bucket", "b", EntryState::kCreating);
  ledger.entries = {creating, deleting, never_sent};
  auto plan = PlanCleanup(ledger, false);
  REQUIRE(plan.deletes.size() == 3);
  CHECK(plan.deletes[0].action == "wait for operation-7, then delete");
  CHECK(plan.deletes[1].action == "wait for projects/p/locations/z/operations/op-1, then delete");
  CHECK(plan.deletes[2].action == "delete");
  auto json = ToJson(plan);
  CHECK(json["delete"][0]["state"] == "deleting");
  CHECK(json["delete"].size() == 3);
}

TEST_CASE("cleanup tiers follow the documented order; unknown kinds go last") {
  CHECK(CleanupTier("ray-job") < CleanupTier("k8s-object"));
  CHECK(CleanupTier("k8s-object") < CleanupTier("nodepool"));
  CHECK(CleanupTier("nodepool") < CleanupTier("cluster"));
  CHECK(CleanupTier("cluster") == CleanupTier("tpu-vm"));  // independent, so deleted at once
  CHECK(CleanupTier("tpu-vm") < CleanupTier("bucket"));
  CHECK(CleanupTier("bucket") < CleanupTier("iam-member"));
  CHECK(CleanupTier("iam-member") < CleanupTier("service-account"));
  CHECK(CleanupTier("something-new") > CleanupTier("service-account"));
}

}  // namespace
}  // namespace tputrain::workflow
