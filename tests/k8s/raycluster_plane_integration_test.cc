// The rendered raycluster-maxtext under the real controllers (tests/k8s/control_plane.h): KubeRay
// makes the pods, kube-scheduler places them on kwok nodes labelled as GKE labels TPU slice nodes,
// in two node pools of one topology. What the hand-played tests cannot show: where the real
// scheduler puts each slice, the events it writes, and the condition KubeRay sets when the API
// server refuses its pods. Each seed's placement on node pools the emulator made, the rendered
// RayCluster's included: seed_placement_integration_test.cc.
#include <algorithm>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "k8s/control_plane.h"
#include "k8s/k8s_test_util.h"
#include "k8s/kwok_nodes.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

using nlohmann::json;

constexpr const char* kReplicaLabel = "ray.io/worker-group-replica-name";
constexpr const char* kCluster = "rayplane";

// The binary's control plane (shared with seed_placement_integration_test.cc, hence its options).
ControlPlane& Plane() {
  ControlPlaneOptions options;
  options.pod_end = PodEnd::kRunForever;
  options.kuberay = options.lws = options.jobset = true;
  return ControlPlane::Shared(options);
}

// One test's nodes and namespace: a CPU pool for the head at the start; at the end the namespace
// goes first (a RayCluster left behind would take the next test's nodes), then every pool.
class TestCluster {
 public:
  explicit TestCluster(ApiServer& server) : server_(server) { AddNodePool(server.admin(), CpuPool(kCluster)); }
  ~TestCluster() {
    auto& admin = server_.admin();
    for (const auto& ns : namespaces_) {
      (void)admin.Send("DELETE", "/api/v1/namespaces/" + ns);
      WaitFor(
          [&] {
            auto pods = admin.GetJson("/api/v1/namespaces/" + ns + "/pods", "");
            return pods && (*pods)["items"].empty();
          },
          std::chrono::seconds(60));
    }
    RemoveNodePools(admin, kCluster);
  }
  TestCluster(const TestCluster&) = delete;
  TestCluster& operator=(const TestCluster&) = delete;
  std::string Namespace(const std::string& prefix) { return namespaces_.emplace_back(server_.NewNamespace(prefix)); }

 private:
  ApiServer& server_;
  std::vector<std::string> namespaces_;
};

// Two node pools of one TPU topology as GKE makes them, `hosts` nodes each. Each test has a
// topology of its own (tests run in random order, sharing the nodes).
std::vector<std::string> TwoPools(k8s::Client& admin, const std::string& machine_type, const std::string& topology,
                                  int hosts) {
  std::vector<std::string> pools;
  for (const char* suffix : {"a", "b"}) {
    const std::string pool = machine_type.substr(0, machine_type.find('-')) + "-" + topology + "-" + suffix;
    AddNodePool(admin, ShapeOfGkePool(kCluster, "us-east5-b",
                                      {{"name", pool},
                                       {"initialNodeCount", hosts},
                                       {"config", {{"machineType", machine_type}}},
                                       {"placementPolicy", {{"tpuTopology", topology}}}}));
    pools.push_back(pool);
  }
  return pools;
}

// raycluster-maxtext as `tputrain render` writes it for the seed, with `sets` on top, in `ns`
// with the service account it names.
std::string Rendered(ApiServer& server, const std::string& ns, const std::vector<std::string>& sets) {
  std::vector<std::string> argv = {
      TputrainBinary(), "render", "raycluster-maxtext", "--values",
      std::string(TPUTRAIN_SOURCE_DIR) + "/tests/render/seed-values/raycluster-maxtext.yaml"};
  for (const auto& set : sets) argv.insert(argv.end(), {"--set", set});
  auto rendered =
      RunProcess({.argv = argv, .env = {{"TPUTRAIN_BUCKET", std::nullopt}, {"TPUTRAIN_TEMPLATE_DIR", std::nullopt}}});
  INFO(rendered.err);
  REQUIRE(rendered.exit_code == 0);
  CreateObject(server.admin(), "/api/v1/namespaces/" + ns + "/serviceaccounts",
               {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "ray-maxtext-ksa"}}}});
  return rendered.out;
}

ProcessResult Wait(ApiServer& server, const std::string& ns, const std::string& target, const std::string& timeout) {
  ProcessOptions options;
  options.argv = {TputrainBinary(), "wait", target, "--timeout", timeout};
  const std::string kubeconfig = server.WriteKubeconfig("wait-" + ns, server.admin_token(), ns);
  options.env = {{"KUBECONFIG", kubeconfig},
                 {"NO_COLOR", "1"},
                 {"XDG_STATE_HOME", kubeconfig + ".state"},
                 {"XDG_CONFIG_HOME", kubeconfig + ".config"},
                 {"TPUTRAIN_RUN", std::nullopt}};
  return RunProcess(options, std::chrono::minutes(5));
}

TEST_CASE("without the rule (KubeRay not from GKE's add-on): wait says whether the real scheduler split the slice",
          "[integration]") {
  auto& plane = Plane();
  auto& server = plane.server();
  auto& admin = server.admin();
  TestCluster cluster(server);
  auto pools = TwoPools(admin, "ct5lp-hightpu-4t", "4x4", 4);
  std::string ns = cluster.Namespace("unruled");
  // The rendered cluster with its affinity taken out: nothing ties a replica's four hosts to one
  // pool, and the scheduler's spreading nearly always splits them (placement.md: 30 of 30).
  auto objects = Parse(Rendered(server, ns, {"TPU_TYPE=v5litepod-16", "RAY_CLUSTER_NAME=unruled"}));
  REQUIRE(objects.size() == 1);
  objects[0].json["spec"]["workerGroupSpecs"][0]["template"]["spec"].erase("affinity");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  REQUIRE(ApplyYaml(*connection, objects[0].json.dump()));

  auto waited = Wait(server, ns, "raycluster/unruled", "3m");
  auto by_replica = PoolsByGroup(PodPlacements(admin, ns, "ray.io/node-type=worker"), kReplicaLabel);
  REQUIRE(by_replica.size() == 1);
  const auto& [replica, replica_pools] = *by_replica.begin();
  INFO(waited.err << "replica " << replica << " on " << replica_pools.size() << " pool(s)");
  if (replica_pools.size() == 1) {  // the rare draw that kept it whole: ready, and rightly so
    CHECK(waited.exit_code == 0);
    CHECK(waited.err.empty());
    return;
  }
  CHECK(waited.exit_code == 1);
  CHECK(waited.out.empty());
  CHECK(std::count(waited.err.begin(), waited.err.end(), '\n') == 1);
  CHECK(waited.err.starts_with("ERROR: (kubernetes) RayCluster " + ns + "/unruled is ready, but its slice replica " +
                               replica + " is split over node pools " + pools[0] + " ("));
  CHECK(waited.err.find(", " + pools[1] + " (") != std::string::npos);
  CHECK(waited.err.find("every host of a TPU slice must be on one node pool") != std::string::npos);
}

TEST_CASE("a slice no pool can take: the wait's timeout quotes the real scheduler's event", "[integration]") {
  auto& plane = Plane();
  auto& server = plane.server();
  // Three v6e 2x4 slices for two 2x4 pools: the third replica's pods find no TPU capacity (GKE's
  // commonest failure), and the scheduler says so through events.k8s.io/v1, read as core/v1 with
  // lastTimestamp null (which once crashed wait).
  TestCluster cluster(server);
  TwoPools(server.admin(), "ct6e-standard-4t", "2x4", 2);
  std::string ns = cluster.Namespace("unplaced");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  REQUIRE(ApplyYaml(*connection,
                    Rendered(server, ns, {"TPU_TYPE=v6e-8", "NUM_SLICES=3", "RAY_CLUSTER_NAME=three-slices"})));
  // Once the scheduler has given up on a pod, the wait's explanation has its event to quote.
  REQUIRE(WaitFor(
      [&] {
        auto events = server.admin().GetJson(
            "/apis/events.k8s.io/v1/namespaces/" + ns + "/events?fieldSelector=reason%3DFailedScheduling", "");
        return events && !(*events)["items"].empty();
      },
      std::chrono::minutes(2)));

  auto waited = Wait(server, ns, "raycluster/three-slices", "5s");
  INFO(waited.err);
  CHECK(waited.exit_code == 1);
  CHECK(waited.err.find("internal") == std::string::npos);
  CHECK(waited.err.find("ERROR: (kubernetes) timed out") != std::string::npos);
  CHECK(waited.err.find(" Pending: FailedScheduling: 0/") != std::string::npos);
  CHECK(waited.err.find("Insufficient google.com/tpu") != std::string::npos);
}

TEST_CASE("KubeRay's FailedCreateWorkerPod ends the wait at once with the API server's refusal", "[integration]") {
  auto& plane = Plane();
  auto& server = plane.server();
  TestCluster cluster(server);
  std::string ns = cluster.Namespace("refused");
  // The mistake placement.md records: the replica key in labelSelector too. The API server
  // refuses every worker pod, and KubeRay retries forever.
  auto objects = Parse(Rendered(server, ns, {"RAY_CLUSTER_NAME=refused"}));
  REQUIRE(objects.size() == 1);
  auto& term = objects[0].json["spec"]["workerGroupSpecs"][0]["template"]["spec"]["affinity"]["podAffinity"]
                              ["requiredDuringSchedulingIgnoredDuringExecution"][0];
  term["labelSelector"]["matchExpressions"] = {{{"key", kReplicaLabel}, {"operator", "Exists"}}};
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  REQUIRE(ApplyYaml(*connection, objects[0].json.dump()));

  auto waited = Wait(server, ns, "raycluster/refused", "20m");
  INFO(waited.err);
  CHECK(waited.exit_code == 1);
  CHECK(waited.err.find("FailedCreateWorkerPod") != std::string::npos);
  CHECK(waited.err.find("exists in both matchLabelKeys and labelSelector") != std::string::npos);
}

}  // namespace
}  // namespace tputrain::testing
