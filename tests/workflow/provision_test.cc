// Request shapes and retry logic of the clients, the poller and the workflow, on a scripted
// transport (behaviour against the emulator is in the integration tests).
#include <unistd.h>

#include <filesystem>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "testing/fake_transport.h"
#include "tpu_vm_multislice.h"
#include "tputrain/emulator/schema.h"
#include "tputrain/gcp/container/client.h"
#include "tputrain/gcp/operations/wait.h"
#include "tputrain/workflow/provision.h"

namespace tputrain::workflow {
namespace {

using nlohmann::json;
using tputrain::testing::FakeClock;
using tputrain::testing::FakeTransport;
using tputrain::testing::JsonReply;

const gcp::container::ClusterRef kCluster{"p", "us-east5-b", "ray-tpu"};

gcp::container::NodePoolSpec V6e16() {
  gcp::container::NodePoolSpec spec;
  spec.name = "v6e-16";
  spec.machine_type = "ct6e-standard-4t";
  spec.node_count = 4;
  spec.tpu_topology = "4x4";
  spec.threads_per_core = 1;
  return spec;
}

struct Fixture {
  FakeTransport transport;
  FakeClock clock;
  core::NullReporter reporter;
  ProvisionEnv env{testing::RuntimeOn(clock, reporter),
                   transport,
                   {"http://c/", "http://t/", "http://s/storage/v1/", "http://i/", "http://r/"}};
};

TEST_CASE("the seed 001 node pool body is gcloud's, field by field, and valid against discovery") {
  FakeTransport transport;
  gcp::container::Client client(transport, "https://container.googleapis.com/");
  auto request = client.BuildCreateNodePool(kCluster, V6e16());
  CHECK(request.method == "POST");
  CHECK(request.url ==
        "https://container.googleapis.com/v1/projects/p/locations/us-east5-b/clusters/ray-tpu/nodePools");
  CHECK_FALSE(request.idempotent);
  // gcloud 528's capture for `node-pools create v6e-16 ... --threads-per-core=1 --tpu-topology=4x4 --num-nodes=4`.
  json gcloud = json::parse(R"({"nodePool": {"config": {"advancedMachineFeatures": {"threadsPerCore": "1"},
    "machineType": "ct6e-standard-4t", "oauthScopes": ["https://www.googleapis.com/auth/devstorage.read_only",
    "https://www.googleapis.com/auth/logging.write", "https://www.googleapis.com/auth/monitoring",
    "https://www.googleapis.com/auth/service.management.readonly", "https://www.googleapis.com/auth/servicecontrol",
    "https://www.googleapis.com/auth/trace.append"]}, "initialNodeCount": 4, "management": {"autoRepair": true,
    "autoUpgrade": true}, "name": "v6e-16", "placementPolicy": {"tpuTopology": "4x4"}, "upgradeSettings":
    {"maxSurge": 1}}, "parent": "projects/p/locations/us-east5-b/clusters/ray-tpu"})");
  json ours = json::parse(request.body);
  CHECK(ours == gcloud);
  auto schemas = emulator::SchemaSet::Builtin();
  REQUIRE(schemas);
  CHECK_FALSE(schemas->Validate("container", "CreateNodePoolRequest", ours,
                                "container.projects.locations.clusters.nodePools.create"));
}

TEST_CASE("polling starts soon, grows and is capped; a timeout stops waiting, not the operation") {
  gcp::operations::PollOptions options;
  CHECK(gcp::operations::PollDelay(options, 0) == std::chrono::milliseconds(1000));
  CHECK(gcp::operations::PollDelay(options, 1) == std::chrono::milliseconds(1500));
  CHECK(gcp::operations::PollDelay(options, 2) == std::chrono::milliseconds(2250));
  CHECK(gcp::operations::PollDelay(options, 20) == std::chrono::milliseconds(10000));
  FakeClock clock;
  options.timeout = std::chrono::seconds(30);
  int polls = 0;
  auto status = gcp::operations::PollUntilDone(
      [&]() -> core::Result<bool> {
        ++polls;
        return false;
      },
      options, {clock, clock, nullptr});
  REQUIRE_FALSE(status);
  CHECK(status.error().kind == core::ErrorKind::kDeadlineExceeded);
  CHECK(status.error().message.find("the operation goes on") != std::string::npos);
  auto sleeps = clock.sleeps();
  REQUIRE(sleeps.size() >= 3);
  CHECK(sleeps[0] < sleeps[1]);
  std::chrono::milliseconds total{0};
  for (auto sleep : sleeps) total += sleep;
  CHECK(total == std::chrono::seconds(30));
}

TEST_CASE("a pool create answered 'cluster already has an operation' is waited out and sent again") {
  Fixture f;
  f.transport.On(
      "POST", "/nodePools",
      {JsonReply(
           400,
           R"({"error":{"code":400,"status":"FAILED_PRECONDITION","message":"Operation operation-1 is currently creating cluster ray-tpu. Please wait and try again once it is done.","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"CLUSTER_ALREADY_HAS_OPERATION"}]}})"),
       JsonReply(
           429,
           R"({"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"Too many operations: cluster \"ray-tpu\" hits the concurrent operations quota 5, please try again later."}})"),
       JsonReply(200, R"({"name":"operation-2","status":"RUNNING"})")});
  f.transport.On("GET", "/operations/operation-2",
                 {JsonReply(200, R"({"name":"operation-2","status":"RUNNING"})"),
                  JsonReply(200, R"({"name":"operation-2","status":"DONE"})")});
  auto outcomes = CreateNodePools(f.env, kCluster, {V6e16()});
  REQUIRE(outcomes);
  CHECK((*outcomes)[0].action == workflow::OutcomeAction::kCreated);
  CHECK(f.transport.Count("POST", "/nodePools") == 3);
  CHECK(f.clock.sleeps().size() >= 3);
}

TEST_CASE("a create whose reply was lost is resolved by reading, never by a second POST") {
  Fixture f;
  f.transport.On("POST", "/nodePools",
                 {JsonReply(503, R"({"error":{"code":503,"status":"UNAVAILABLE","message":"backend"}})")});
  json pool = {
      {"name", "v6e-16"},
      {"status", "RUNNING"},
      {"initialNodeCount", 4},
      {"config", {{"machineType", "ct6e-standard-4t"}, {"advancedMachineFeatures", {{"threadsPerCore", "1"}}}}},
      {"placementPolicy", {{"tpuTopology", "4x4"}}}};
  f.transport.On("GET", "/nodePools/v6e-16", {JsonReply(200, pool.dump())});
  auto outcomes = CreateNodePools(f.env, kCluster, {V6e16()});
  REQUIRE(outcomes);
  CHECK((*outcomes)[0].action == workflow::OutcomeAction::kCreated);
  CHECK(f.transport.Count("POST", "/nodePools") == 1);
}

TEST_CASE("409 on create: the same shape is adopted, a different one names the fields") {
  Fixture f;
  f.transport.On("POST", "/nodePools",
                 {JsonReply(409, R"({"error":{"code":409,"status":"ALREADY_EXISTS","message":"Already exists"}})")});
  json pool = {{"name", "v6e-16"},
               {"status", "RUNNING"},
               {"initialNodeCount", 4},
               {"config", {{"machineType", "ct6e-standard-4t"}}},
               {"placementPolicy", {{"tpuTopology", "4x4"}}}};
  f.transport.On("GET", "/nodePools/v6e-16", {JsonReply(200, pool.dump())});
  auto spec = V6e16();
  spec.threads_per_core.reset();
  auto adopted = CreateNodePools(f.env, kCluster, {spec});
  REQUIRE(adopted);
  CHECK((*adopted)[0].action == workflow::OutcomeAction::kAdopted);
  spec.tpu_topology = "4x8";
  spec.node_count = 8;
  auto refused = CreateNodePools(f.env, kCluster, {spec});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("placementPolicy.tpuTopology: want 4x8, have 4x4") != std::string::npos);
  CHECK(refused.error().message.find("initialNodeCount: want 8, have 4") != std::string::npos);
}

json PoolIn(const std::string& status, const std::string& run = "") {
  json pool = {{"name", "v6e-16"},
               {"status", status},
               {"initialNodeCount", 4},
               {"config", {{"machineType", "ct6e-standard-4t"}}},
               {"placementPolicy", {{"tpuTopology", "4x4"}}}};
  if (status == "ERROR") pool["statusMessage"] = "Google Compute Engine: Not enough resources available";
  if (!run.empty()) pool["config"]["resourceLabels"] = {{kRunLabel, run}};
  return pool;
}

const char kAlreadyExists[] = R"({"error":{"code":409,"status":"ALREADY_EXISTS","message":"Already exists"}})";

TEST_CASE("looking first (up): what exists is adopted or named different with reads only, the rest created") {
  Fixture f;
  f.env.look_first = true;
  json pool = {{"name", "v6e-16"},
               {"status", "RUNNING"},
               {"initialNodeCount", 4},
               {"config", {{"machineType", "ct6e-standard-4t"}}},
               {"placementPolicy", {{"tpuTopology", "4x4"}}}};
  f.transport.On("GET", "/nodePools/v6e-16", {JsonReply(200, pool.dump())});
  auto spec = V6e16();
  spec.threads_per_core.reset();
  auto adopted = CreateNodePools(f.env, kCluster, {spec});
  REQUIRE(adopted);
  CHECK((*adopted)[0].action == workflow::OutcomeAction::kAdopted);
  CHECK(f.transport.Count("POST", "/nodePools") == 0);

  // A dry run that looks first reads, and plans only what is not there.
  std::vector<http::Request> planned;
  f.env.dry_run = &planned;
  auto same = CreateNodePools(f.env, kCluster, {spec});
  REQUIRE(same);
  CHECK((*same)[0].action == workflow::OutcomeAction::kAdopted);
  CHECK(planned.empty());
  spec.node_count = 8;
  auto differs = CreateNodePools(f.env, kCluster, {spec});
  REQUIRE_FALSE(differs);
  CHECK(differs.error().kind == core::ErrorKind::kAlreadyExists);
  CHECK(differs.error().message.find("initialNodeCount: want 8, have 4") != std::string::npos);
  auto other = V6e16();
  other.name = "second";  // not scripted: the fake answers 404
  auto planned_create = CreateNodePools(f.env, kCluster, {other});
  REQUIRE(planned_create);
  CHECK((*planned_create)[0].action == workflow::OutcomeAction::kWouldSend);
  CHECK(planned.size() == 1);
  CHECK(f.transport.Count("POST", "/nodePools") == 0);
}

TEST_CASE("409 on create: one still provisioning is waited for before it is adopted") {
  Fixture f;
  f.transport.On("POST", "/nodePools", {JsonReply(409, kAlreadyExists)});
  f.transport.On("GET", "/nodePools/v6e-16",
                 {JsonReply(200, PoolIn("PROVISIONING").dump()), JsonReply(200, PoolIn("PROVISIONING").dump()),
                  JsonReply(200, PoolIn("RUNNING").dump())});
  auto spec = V6e16();
  spec.threads_per_core.reset();
  auto adopted = CreateNodePools(f.env, kCluster, {spec});
  REQUIRE(adopted);
  CHECK((*adopted)[0].action == workflow::OutcomeAction::kAdopted);
  CHECK(f.transport.Count("GET", "/nodePools/v6e-16") == 3);
  CHECK_FALSE(f.clock.sleeps().empty());
}

TEST_CASE("409 on create: one in ERROR is reported with the API's status, never adopted") {
  Fixture f;
  f.transport.On("POST", "/nodePools", {JsonReply(409, kAlreadyExists)});
  f.transport.On("GET", "/nodePools/v6e-16", {JsonReply(200, PoolIn("ERROR").dump())});
  auto spec = V6e16();
  spec.threads_per_core.reset();
  auto refused = CreateNodePools(f.env, kCluster, {spec});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().kind == core::ErrorKind::kFailedPrecondition);
  CHECK(refused.error().message.find("nodepool v6e-16 exists but is not usable") != std::string::npos);
  CHECK(refused.error().message.find("Not enough resources available") != std::string::npos);
}

// tputrain has no `queued-resource delete`: `tpu-vm delete ID` deletes a queued resource and its
// slices. A re-run after a preemption once suggested the command that does not exist.
TEST_CASE("409 on create: a suspended queued resource names the command that deletes it") {
  Fixture f;
  f.transport.On("POST", "/queuedResources", {JsonReply(409, kAlreadyExists)});
  const json suspended = {{"name", "projects/p/locations/us-east5-a/queuedResources/q"},
                          {"state", {{"state", "SUSPENDED"}}},
                          {"tpu", {{"nodeSpec", {{{"nodeId", "q"}, {"node", {{"acceleratorType", "v6e-8"}}}}}}}}};
  f.transport.On("GET", "/queuedResources/q", {JsonReply(200, suspended.dump())});
  MultisliceCreate request;
  request.ref = {"p", "us-east5-a", "q"};
  request.spec.accelerator_type = "v6e-8";
  request.slices = 0;
  auto refused = CreateMultislice(f.env, request);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message ==
        "queued-resource q exists but is not usable (state SUSPENDED); delete it (tputrain tpu-vm delete q --zone "
        "us-east5-a) and run again, or run again with --recreate-unusable");

  Fixture g;
  g.transport.On("POST", "/nodePools", {JsonReply(409, kAlreadyExists)});
  g.transport.On("GET", "/nodePools/v6e-16", {JsonReply(200, PoolIn("ERROR").dump())});
  auto spec = V6e16();
  spec.threads_per_core.reset();
  auto pool = CreateNodePools(g.env, kCluster, {spec});
  REQUIRE_FALSE(pool);
  CHECK(pool.error().message.find("delete it (tputrain nodepool delete v6e-16 --cluster ray-tpu --location "
                                  "us-east5-b) and run again") != std::string::npos);
}

TEST_CASE("409 on create with --recreate-unusable: one in ERROR is deleted and created again, once") {
  Fixture f;
  f.env.recreate_unusable = true;
  f.transport.On("POST", "/nodePools",
                 {JsonReply(409, kAlreadyExists), JsonReply(200, R"({"name":"op-create","status":"RUNNING"})")});
  f.transport.On("GET", "/nodePools/v6e-16", {JsonReply(200, PoolIn("ERROR").dump())});
  f.transport.On("DELETE", "/nodePools/v6e-16", {JsonReply(200, R"({"name":"op-delete","status":"RUNNING"})")});
  f.transport.On("GET", "/operations/op-delete", {JsonReply(200, R"({"name":"op-delete","status":"DONE"})")});
  f.transport.On("GET", "/operations/op-create", {JsonReply(200, R"({"name":"op-create","status":"DONE"})")});
  auto spec = V6e16();
  spec.threads_per_core.reset();
  auto recreated = CreateNodePools(f.env, kCluster, {spec});
  REQUIRE(recreated);
  CHECK((*recreated)[0].action == workflow::OutcomeAction::kCreated);
  CHECK(f.transport.Count("DELETE", "/nodePools/v6e-16") == 1);
  CHECK(f.transport.Count("POST", "/nodePools") == 2);

  SECTION("a second 409 after the replacement is reported, not replaced again") {
    Fixture g;
    g.env.recreate_unusable = true;
    g.transport.On("POST", "/nodePools", {JsonReply(409, kAlreadyExists)});
    g.transport.On("GET", "/nodePools/v6e-16", {JsonReply(200, PoolIn("ERROR").dump())});
    g.transport.On("DELETE", "/nodePools/v6e-16", {JsonReply(200, R"({"name":"op-delete","status":"RUNNING"})")});
    g.transport.On("GET", "/operations/op-delete", {JsonReply(200, R"({"name":"op-delete","status":"DONE"})")});
    auto refused = CreateNodePools(g.env, kCluster, {spec});
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("exists but is not usable") != std::string::npos);
    CHECK(g.transport.Count("DELETE", "/nodePools/v6e-16") == 1);
  }
}

TEST_CASE("409 on create: a resource with this run's label is this run's, whoever read it first") {
  namespace fs = std::filesystem;
  Fixture f;
  const fs::path dir = fs::temp_directory_path() / ("tputrain-owner-" + std::to_string(::getpid()));
  state::LedgerStore store(dir.string(), f.clock);
  f.env.ledger = &store;
  f.env.run_id = "run-1";
  // Another process of run-1 created the pool; this one's create meets it.
  f.transport.On("POST", "/nodePools", {JsonReply(409, kAlreadyExists)});
  f.transport.On("GET", "/nodePools/v6e-16", {JsonReply(200, PoolIn("RUNNING", "run-1").dump())});
  auto spec = V6e16();
  spec.threads_per_core.reset();
  REQUIRE(CreateNodePools(f.env, kCluster, {spec}));
  auto ledger = store.Load("run-1");
  REQUIRE(ledger);
  const auto* entry = ledger->Find(ResourceKind::kNodePool, gcp::container::NodePoolRef{kCluster, "v6e-16"}.Name());
  REQUIRE(entry != nullptr);
  CHECK(entry->owned);
  CHECK(entry->state == state::EntryState::kCreated);

  // For another run the same pool is adopted, and left to the run that made it.
  f.env.run_id = "run-2";
  auto adopted = CreateNodePools(f.env, kCluster, {spec});
  REQUIRE(adopted);
  CHECK((*adopted)[0].action == workflow::OutcomeAction::kAdopted);
  auto other = store.Load("run-2");
  REQUIRE(other);
  const auto* foreign = other->Find(ResourceKind::kNodePool, gcp::container::NodePoolRef{kCluster, "v6e-16"}.Name());
  REQUIRE(foreign != nullptr);
  CHECK_FALSE(foreign->owned);
  fs::remove_all(dir);
}

TEST_CASE("an operation that ends in a stockout is an error with the place, the machine and a hint") {
  Fixture f;
  f.transport.On("POST", "/nodePools", {JsonReply(200, R"({"name":"operation-3","status":"RUNNING"})")});
  f.transport.On(
      "GET", "/operations/operation-3",
      {JsonReply(
          200,
          R"({"name":"operation-3","status":"DONE","statusMessage":"Google Compute Engine: Not enough resources available to fulfill the request.","error":{"code":8,"message":"Not enough resources"}})")});
  auto result = CreateNodePools(f.env, kCluster, {V6e16()});
  REQUIRE_FALSE(result);
  CHECK(result.error().kind == core::ErrorKind::kResourceExhausted);
  CHECK(result.error().message.find("Google Compute Engine: Not enough resources available") != std::string::npos);
  CHECK(result.error().message.find("us-east5-b (ct6e-standard-4t 4x4, on-demand): out of capacity (stockout)") !=
        std::string::npos);
  CHECK(result.error().message.find("; next: try other zones") != std::string::npos);
}

TEST_CASE("--dry-run collects the requests and sends nothing") {
  Fixture f;
  std::vector<http::Request> planned;
  f.env.dry_run = &planned;
  f.env.run_id = "r1";
  ClusterCreate request{kCluster, {}, {V6e16(), V6e16()}};
  request.spec.name = "ray-tpu";
  request.spec.ray_operator = true;
  request.pools[1].name = "v6e-16-b";
  auto outcomes = CreateCluster(f.env, request);
  REQUIRE(outcomes);
  CHECK(outcomes->size() == 3);
  REQUIRE(planned.size() == 3);
  CHECK(json::parse(planned[0].body)["cluster"]["resourceLabels"]["tputrain-run"] == "r1");
  CHECK(f.transport.requests().empty());
}

}  // namespace
}  // namespace tputrain::workflow
