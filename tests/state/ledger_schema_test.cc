// The ledger file is a contract with every later release: cleanup reads a run's ledger days after
// it was written, often by a newer tputrain. These tests read files exactly as a release wrote
// them (tests/state/golden/); a change that breaks them breaks users' cleanups.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "tputrain/state/access_record.h"
#include "tputrain/state/ledger.h"

using nlohmann::json;
using tputrain::core::ErrorKind;
using tputrain::state::AccessRecord;
using tputrain::state::AccessRecordFromJson;
using tputrain::state::EntryState;
using tputrain::state::Ledger;
using tputrain::state::LedgerFromJson;

namespace {

std::string Golden(const std::string& name) {
  std::ifstream in(std::string(TPUTRAIN_SOURCE_DIR) + "/tests/state/golden/" + name, std::ios::binary);
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Ledger Read(const std::string& name) {
  auto ledger = LedgerFromJson(json::parse(Golden(name)));
  REQUIRE(ledger);
  return *ledger;
}

AccessRecord AccessOf(const tputrain::state::LedgerEntry& entry) {
  auto access = AccessRecordFromJson(entry.details.at("access"));
  REQUIRE(access);
  return *access;
}

std::string ErrorOf(const json& document) {
  auto ledger = LedgerFromJson(document);
  REQUIRE_FALSE(ledger);
  CHECK(ledger.error().message.find('\n') == std::string::npos);
  CHECK(ledger.error().message.find("json.exception") == std::string::npos);
  return ledger.error().message;
}

json Minimal() {
  return json::parse(R"({"version": 1, "run_id": "r", "created_at": "", "entries": [
    {"kind": "bucket", "name": "b", "state": "created", "operation": "", "owned": true, "details": {},
     "created_at": "", "updated_at": ""}]})");
}

}  // namespace

TEST_CASE("golden v1 ledger: every entry kind and both access records read field by field", "[unit]") {
  Ledger ledger = Read("ledger_v1.json");
  CHECK(ledger.run_id == "tr-20261120-091502-4c1d");
  CHECK(ledger.created_at == "2026-11-20T09:15:02Z");
  REQUIRE(ledger.entries.size() == 10);
  const std::string cluster = "projects/demo-project/locations/us-central1/clusters/ray-tpu";

  const auto& gke = ledger.entries[0];
  CHECK(gke.KindName() == "cluster");
  CHECK(gke.name == cluster);
  CHECK(gke.state == EntryState::kCreated);
  CHECK(gke.operation.empty());
  CHECK(gke.owned);
  CHECK(gke.details == json{{"project", "demo-project"}, {"location", "us-central1"}, {"cluster", "ray-tpu"}});
  CHECK(gke.created_at == "2026-11-20T09:15:02Z");
  CHECK(gke.updated_at == "2026-11-20T09:21:40Z");

  const auto& pool = ledger.entries[1];
  CHECK(pool.KindName() == "nodepool");
  CHECK(pool.name == cluster + "/nodePools/tpu-v6e-16");
  CHECK(pool.state == EntryState::kCreating);
  CHECK(pool.operation == "operation-1763630102000-5f3a9c1e");
  CHECK(pool.details.at("nodepool") == "tpu-v6e-16");
  CHECK(pool.details.at("machineType") == "ct6e-standard-4t");
  CHECK(pool.details.at("tpuTopology") == "4x4");
  CHECK(pool.details.at("nodeCount") == 4);

  const auto& vm = ledger.entries[2];
  CHECK(vm.KindName() == "tpu-vm");
  CHECK(vm.name == "projects/demo-project/locations/us-east5-b/nodes/tpu-vm-1");
  CHECK(vm.state == EntryState::kDeleting);
  CHECK(vm.operation == "projects/demo-project/locations/us-east5-b/operations/operation-1763630500-abc");
  CHECK(vm.details ==
        json{{"project", "demo-project"}, {"zone", "us-east5-b"}, {"node", "tpu-vm-1"}, {"acceleratorType", "v6e-8"}});

  const auto& bucket = ledger.entries[3];
  CHECK(bucket.KindName() == "bucket");
  CHECK(bucket.name == "demo-project-checkpoints");
  CHECK(bucket.details == json{{"project", "demo-project"}, {"bucket", "demo-project-checkpoints"}});

  const auto& account = ledger.entries[4];
  CHECK(account.KindName() == "service-account");
  CHECK(account.name == "maxtext@demo-project.iam.gserviceaccount.com");
  CHECK(account.details.at("email") == account.name);

  const auto& member = ledger.entries[5];
  CHECK(member.KindName() == "iam-member");
  CHECK(member.name ==
        "bucket/demo-project-checkpoints|roles/storage.objectAdmin|"
        "serviceAccount:maxtext@demo-project.iam.gserviceaccount.com");
  CHECK_FALSE(member.owned);  // adopted: cleanup leaves it alone without --force
  CHECK(member.details.at("target") == "bucket");
  CHECK(member.details.at("role") == "roles/storage.objectAdmin");

  const auto& on_gke = ledger.entries[6];
  CHECK(on_gke.KindName() == "k8s-object");
  CHECK(on_gke.name == "gke:" + cluster + "|ray.io/v1|RayCluster|default|ray");
  CHECK(on_gke.details.at("api_version") == "ray.io/v1");
  CHECK(on_gke.details.at("kind") == "RayCluster");
  CHECK(on_gke.details.at("namespace") == "default");
  CHECK(on_gke.details.at("name") == "ray");
  CHECK(AccessOf(on_gke) == AccessRecord::Gke(cluster));
  CHECK(AccessOf(on_gke).Id() + "|ray.io/v1|RayCluster|default|ray" == on_gke.name);

  const auto& on_kubeconfig = ledger.entries[7];
  CHECK(on_kubeconfig.KindName() == "k8s-object");
  CHECK(on_kubeconfig.state == EntryState::kDeleted);
  CHECK(on_kubeconfig.details.at("namespace") == "");  // cluster-scoped
  CHECK(AccessOf(on_kubeconfig) == AccessRecord::Kubeconfig("/home/ada/.kube/config", "kind-tputrain"));
  CHECK(AccessOf(on_kubeconfig).Id() + "|v1|Namespace||ml" == on_kubeconfig.name);

  const auto& direct_job = ledger.entries[8];
  CHECK(direct_job.KindName() == "ray-job");
  CHECK(direct_job.name == "raysubmit_7Qm2xkS1c9TtBd4W");
  CHECK(direct_job.details == json{{"address", "http://127.0.0.1:8265"}});

  const auto& proxied_job = ledger.entries[9];
  CHECK(proxied_job.KindName() == "ray-job");
  CHECK(proxied_job.details.at("raycluster") == "ray");
  CHECK(proxied_job.details.at("namespace") == "default");
  CHECK(AccessOf(proxied_job) == AccessRecord::Gke(cluster));

  CHECK(ledger.Live().size() == 9);
}

TEST_CASE("golden v1 ledger: this release writes it back byte for byte", "[unit]") {
  std::string text = Golden("ledger_v1.json");
  auto ledger = LedgerFromJson(json::parse(text));
  REQUIRE(ledger);
  CHECK(ToJson(*ledger).dump(2) + "\n" == text);  // the format LedgerStore writes
}

TEST_CASE("a ledger without a version is version 1", "[unit]") {
  Ledger ledger = Read("ledger_without_version.json");
  CHECK(ledger.run_id == "tr-20261101-120000-0a0a");
  REQUIRE(ledger.entries.size() == 1);
  CHECK(ledger.entries[0].KindName() == "cluster");
  CHECK(ToJson(ledger).at("version") == tputrain::state::kLedgerSchemaVersion);
}

TEST_CASE("a ledger of a newer schema is refused in one line saying a newer tputrain wrote it", "[unit]") {
  json newer = Minimal();
  newer["version"] = tputrain::state::kLedgerSchemaVersion + 1;
  auto ledger = LedgerFromJson(newer);
  REQUIRE_FALSE(ledger);
  CHECK(ledger.error().kind == ErrorKind::kFailedPrecondition);
  CHECK(ledger.error().message ==
        "written by a newer tputrain (ledger schema version 2; this tputrain reads up to 1): use the tputrain release "
        "that wrote it, or a newer one");
  newer["version"] = "1";
  CHECK(ErrorOf(newer) == "version: expected a positive integer");
  newer["version"] = 0;
  CHECK(ErrorOf(newer) == "version: expected a positive integer");
}

TEST_CASE("a wrong-typed ledger field is one line naming it, not a JSON library message", "[unit]") {
  CHECK(LedgerFromJson(Minimal()));
  auto with = [](const char* pointer, json value) {
    json document = Minimal();
    document[json::json_pointer(pointer)] = std::move(value);
    return ErrorOf(document);
  };
  CHECK(ErrorOf(json::array()) == "the ledger: expected a JSON object");
  CHECK(with("/run_id", 5) == "run_id: expected a string");
  CHECK(with("/created_at", false) == "created_at: expected a string");
  CHECK(with("/entries", json::object()) == "entries: expected a list");
  CHECK(with("/entries/0", "bucket") == "entries[0]: expected an object");
  CHECK(with("/entries/0/kind", nullptr) == "entries[0].kind: expected a string");
  CHECK(with("/entries/0/state", "gone") ==
        "entries[0].state: expected creating, created, deleting, deleted, failed or preempted, got 'gone'");
  CHECK(with("/entries/0/owned", "yes") == "entries[0].owned: expected true or false");
  CHECK(with("/entries/0/details", json::array()) == "entries[0].details: expected an object");
  CHECK(with("/entries/0/operation", 3) == "entries[0].operation: expected a string");
  CHECK(with("/entries/0/updated_at", 3) == "entries[0].updated_at: expected a string");
  json missing = Minimal();
  missing.erase("run_id");
  CHECK(ErrorOf(missing) == "run_id: expected a string (it is missing)");
  json no_name = Minimal();
  no_name["entries"][0].erase("name");
  CHECK(ErrorOf(no_name) == "entries[0].name: expected a string (it is missing)");
}

TEST_CASE("optional entry fields keep their defaults when absent; unknown fields are ignored", "[unit]") {
  auto ledger = LedgerFromJson(json::parse(R"({"run_id": "r", "entries": [
    {"kind": "bucket", "name": "b", "state": "created", "added_by_a_later_release": [1, 2]}],
    "also_later": {}})"));
  REQUIRE(ledger);
  const auto& entry = ledger->entries.at(0);
  CHECK(entry.owned);
  CHECK(entry.operation.empty());
  CHECK(entry.details == json::object());
  CHECK(entry.created_at.empty());
}

TEST_CASE("the steps a stack's `up` remembers go through the file; a ledger without them has none", "[unit]") {
  json with_steps = Minimal();
  with_steps["steps"] = {{"workload", {{"fingerprint", "0123456789abcdef"}, {"state", "done"}}}};
  auto ledger = LedgerFromJson(with_steps);
  REQUIRE(ledger);
  CHECK(ledger->steps["workload"]["state"] == "done");
  CHECK(ToJson(*ledger)["steps"] == with_steps["steps"]);
  auto without = LedgerFromJson(Minimal());
  REQUIRE(without);
  CHECK(without->steps.empty());
  CHECK_FALSE(ToJson(*without).contains("steps"));  // files of runs without a stack stay as they were
  json odd = Minimal();
  odd["steps"] = "not a map";
  CHECK(LedgerFromJson(odd));  // only spares a second `up` some work: never worth refusing the ledger over
}

TEST_CASE("a kind a later release added is carried as it was written, and found by no lookup", "[unit]") {
  json later = Minimal();
  later["entries"][0]["kind"] = "gpu-vm";
  auto ledger = LedgerFromJson(later);
  REQUIRE(ledger);
  const auto& entry = ledger->entries[0];
  CHECK(entry.kind == tputrain::state::ResourceKind::kUnknown);
  CHECK(entry.KindName() == "gpu-vm");
  CHECK(ledger->Find(tputrain::state::ResourceKind::kUnknown, entry.name) == nullptr);
  CHECK(ToJson(*ledger)["entries"][0]["kind"] == "gpu-vm");
}

TEST_CASE("every kind's name reads back as that kind", "[unit]") {
  using tputrain::state::ResourceKind;
  for (auto kind :
       {ResourceKind::kCluster, ResourceKind::kNodePool, ResourceKind::kTpuVm, ResourceKind::kBucket,
        ResourceKind::kServiceAccount, ResourceKind::kIamMember, ResourceKind::kK8sObject, ResourceKind::kRayJob}) {
    CHECK(tputrain::state::KindFromName(tputrain::state::KindName(kind)) == kind);
  }
  CHECK(tputrain::state::KindFromName("unknown") == ResourceKind::kUnknown);
}
