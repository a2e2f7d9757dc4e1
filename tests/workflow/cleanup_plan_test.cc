#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "testing/fake_transport.h"
#include "tputrain/workflow/cleanup.h"
#include "tputrain/workflow/cleanup_runs.h"

namespace tputrain::workflow {
namespace {

using state::EntryState;
using state::LedgerEntry;

LedgerEntry Entry(std::string kind, std::string name, EntryState state = EntryState::kCreated, bool owned = true,
                  nlohmann::json details = nlohmann::json::object()) {
  LedgerEntry entry;
  entry.kind = state::KindFromName(kind);
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
  for (const auto& item : items) kinds.push_back(item.entry.KindName() + ":" + item.entry.name);
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
                                 "cluster:" + kCluster, "bucket:b", "iam-member:project/p|roles/x|serviceAccount:sa",
                                 "service-account:sa@p.iam.gserviceaccount.com"});
  CHECK(plan.deletes[2].step == CleanupAction::kGoesWithCluster);
  CHECK(plan.deletes[4].step == CleanupAction::kDelete);
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
  CHECK(plan.deletes[0].entry.KindName() == "nodepool");
  CHECK(plan.deletes[0].step == CleanupAction::kDelete);  // its cluster stays, so the pool is deleted itself
  REQUIRE(plan.kept.size() == 1);
  CHECK(plan.kept[0].entry.KindName() == "cluster");
  CHECK(plan.kept[0].step == CleanupAction::kKeep);
  CHECK(plan.kept[0].Phrase() == "kept (adopted; --force deletes it)");

  auto forced = PlanCleanup(ledger, true);
  CHECK(forced.kept.empty());
  CHECK(Kinds(forced.deletes) ==
        std::vector<std::string>{"nodepool:" + kCluster + "/nodePools/np", "cluster:" + kCluster});
  CHECK(forced.deletes[0].step == CleanupAction::kGoesWithCluster);
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
  CHECK(plan.deletes[0].Phrase() == "wait for operation-7, then delete");
  CHECK(plan.deletes[1].Phrase() == "wait for projects/p/locations/z/operations/op-1, then delete");
  CHECK(plan.deletes[2].step == CleanupAction::kDelete);
  auto json = ToJson(plan);
  CHECK(json["delete"][0]["state"] == "deleting");
  CHECK(json["delete"][0]["action"] == "wait for operation-7, then delete");
  CHECK(json["delete"].size() == 3);
}

TEST_CASE("cleanup tiers follow the documented order; unknown kinds go last") {
  CHECK(CleanupTier(ResourceKind::kRayJob) < CleanupTier(ResourceKind::kK8sObject));
  // A tier holds one kind where cleanup dispatches by tier (Ray jobs, Kubernetes objects).
  CHECK(CleanupTier(ResourceKind::kBuild) != CleanupTier(ResourceKind::kRayJob));
  CHECK(CleanupTier(ResourceKind::kBuild) != CleanupTier(ResourceKind::kK8sObject));
  CHECK(CleanupTier(ResourceKind::kBuild) < CleanupTier(ResourceKind::kBucket));
  // A model is unpublished while sax-http runs, before the objects that run it are deleted.
  CHECK(CleanupTier(ResourceKind::kServedModel) != CleanupTier(ResourceKind::kBuild));
  CHECK(CleanupTier(ResourceKind::kServedModel) < CleanupTier(ResourceKind::kK8sObject));
  CHECK(CleanupTier(ResourceKind::kK8sObject) < CleanupTier(ResourceKind::kNodePool));
  CHECK(CleanupTier(ResourceKind::kNodePool) < CleanupTier(ResourceKind::kCluster));
  CHECK(CleanupTier(ResourceKind::kCluster) == CleanupTier(ResourceKind::kTpuVm));  // independent, so deleted at once
  CHECK(CleanupTier(ResourceKind::kTpuVm) < CleanupTier(ResourceKind::kBucket));
  CHECK(CleanupTier(ResourceKind::kBucket) < CleanupTier(ResourceKind::kIamMember));
  CHECK(CleanupTier(ResourceKind::kIamMember) < CleanupTier(ResourceKind::kServiceAccount));
  CHECK(CleanupTier(ResourceKind::kUnknown) > CleanupTier(ResourceKind::kServiceAccount));
}

TEST_CASE("the runs to clean up: one run, all of them, never both; an unknown --run is an error") {
  namespace fs = std::filesystem;
  testing::FakeClock clock;
  const fs::path dir = fs::temp_directory_path() / ("tputrain-plan-runs-" + std::to_string(::getpid()));
  state::LedgerStore store(dir.string(), clock);
  REQUIRE(store.RecordCreating("run-a", Entry("bucket", "b")));
  REQUIRE(store.RecordCreating("run-b", Entry("service-account", "sa@p.iam.gserviceaccount.com")));
  core::Env env;

  auto one = PlanRuns(store, {"run-a", false, false}, env);
  REQUIRE(one);
  REQUIRE(one->plans.size() == 1);
  CHECK(one->plans[0].run_id == "run-a");
  CHECK(Kinds(one->plans[0].deletes) == std::vector<std::string>{"bucket:b"});

  auto all = PlanRuns(store, {"", true, false}, env);
  REQUIRE(all);
  CHECK(all->plans.size() == 2);
  CHECK(all->unreadable.empty());
  CHECK(DeleteCount(all->plans) == 2);
  CHECK(NeedsGoogle(all->plans));

  // One corrupt ledger: --all plans the healthy runs and names the broken one; --run fails on it.
  { std::ofstream(dir / "run-z.json") << "{not json"; }
  auto with_corrupt = PlanRuns(store, {"", true, false}, env);
  REQUIRE(with_corrupt);
  CHECK(with_corrupt->plans.size() == 2);
  REQUIRE(with_corrupt->unreadable.size() == 1);
  CHECK(with_corrupt->unreadable[0].rfind("run run-z: ", 0) == 0);
  CHECK(Unreadable(with_corrupt->unreadable).kind == core::ErrorKind::kFailedPrecondition);
  CHECK_FALSE(PlanRuns(store, {"run-z", false, false}, env));

  auto unknown = PlanRuns(store, {"run-c", false, false}, env);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message == "--run: no run 'run-c' in " + dir.string() + " (tputrain runs list)");
  core::Env with_env_run(std::map<std::string, std::string>{{"TPUTRAIN_RUN", "run-c"}});
  auto never_written = PlanRuns(store, {"", false, false}, with_env_run);
  REQUIRE(never_written);
  CHECK(never_written->plans.empty());

  auto both = PlanRuns(store, {"run-a", true, false}, env);
  REQUIRE_FALSE(both);
  CHECK(both.error().message == "--all and --run are exclusive: pass one");
  fs::remove_all(dir);
}

TEST_CASE("runs of Kubernetes objects and Ray jobs need no Google credentials") {
  CleanupPlan plan;
  plan.deletes.push_back({Entry("ray-job", "raysubmit_1"), CleanupAction::kDelete});
  plan.deletes.push_back({Entry("k8s-object", "kubeconfig:ctx|v1|Namespace||ml"), CleanupAction::kDelete});
  CHECK_FALSE(NeedsGoogle({plan}));
  plan.deletes.push_back({Entry("nodepool", "np"), CleanupAction::kGoesWithCluster});
  CHECK(NeedsGoogle({plan}));
}

}  // namespace
}  // namespace tputrain::workflow
