// Multi-host vLLM (`serve up --engine vllm --tpu-type v6e-16`: a LeaderWorkerSet of 4 pods a
// group, one per ct6e-standard-4t host) on a GKE cluster made on the emulator, over the real
// control plane (LWS's controller and webhooks, the scheduler, kwok Nodes made from the
// emulator's node pools). GKE's multi-host slice is one node pool: each LWS group (replica) must
// land whole on one 4x4 pool, and no two groups on the same pool.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "k8s/emulated_gke.h"
#include "k8s/k8s_test_util.h"

namespace tputrain::testing {
namespace {

// As seed_placement_integration_test.cc's: one control plane for the binary.
ControlPlane& Plane() {
  ControlPlaneOptions options;
  options.pod_end = PodEnd::kRunForever;
  options.kuberay = options.lws = options.jobset = true;
  return ControlPlane::Shared(options);
}

ProcessResult Ok(EmulatedGke& gke, const std::vector<std::string>& args) {
  auto result = gke.Tputrain(args);
  std::string command = "tputrain";
  for (const auto& arg : args) command += " " + arg;
  INFO(command << "\nstdout: " << result.out << "\nstderr: " << result.err);
  REQUIRE(result.exit_code == 0);
  return result;
}

TEST_CASE("serve up --engine vllm v6e-16: each LeaderWorkerSet group runs whole on its own 4x4 node pool",
          "[integration]") {
  auto& plane = Plane();
  auto& admin = plane.server().admin();
  EmulatedGke gke(plane);
  const std::vector<std::string> at = {"--cluster", "vllm-mh", "--location", "us-east5", "--run", "vllm-mh"};
  auto with_at = [&](std::vector<std::string> args) {
    args.insert(args.end(), at.begin(), at.end());
    return args;
  };
  Ok(gke, {"cluster", "create", "vllm-mh", "--location", "us-east5", "--machine-type", "n2-standard-32", "--run",
           "vllm-mh"});
  for (const char* pool : {"vllm-v6e-a", "vllm-v6e-b"}) {
    Ok(gke, {"nodepool", "create", pool, "--cluster", "vllm-mh", "--location", "us-east5", "--node-locations",
             "us-east5-b", "--machine-type", "ct6e-standard-4t", "--num-nodes", "4", "--tpu-topology", "4x4",
             "--placement-type", "COMPACT", "--run", "vllm-mh"});
  }
  gke.Sync();
  const std::string ns = gke.Namespace("vllm-mh");
  auto up = Ok(gke, with_at({"serve", "up", "--engine", "vllm", "--model", "meta-llama/Llama-3.3-70B-Instruct",
                             "--tpu-type", "v6e-16", "--no-wait", "-n", ns, "--format", "json"}));
  const auto printed = nlohmann::json::parse(up.out);
  CHECK(printed["workload"] == "LeaderWorkerSet/vllm-tpu");
  CHECK(printed["hosts"] == 4);

  // A second replica (a second slice), as a user scaling the set would: LWS makes a second group.
  const std::string lws = "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns + "/leaderworkersets/vllm-tpu";
  auto scaled = admin.Send("PATCH", lws, R"({"spec":{"replicas":2}})", "application/merge-patch+json");
  REQUIRE(scaled);
  INFO(scaled->body);
  REQUIRE(scaled->status == 200);

  const std::string selector = "leaderworkerset.sigs.k8s.io/name=vllm-tpu";
  std::vector<PodPlacement> pods;
  const bool placed = WaitFor(
      [&] {
        pods = PodPlacements(admin, ns, selector);
        if (pods.size() != 8) return false;
        for (const auto& pod : pods) {
          if (pod.node.empty()) return false;
        }
        return true;
      },
      std::chrono::minutes(3));
  std::string where;
  for (const auto& pod : pods) {
    where += pod.pod + " [" + pod.labels.value("leaderworkerset.sigs.k8s.io/group-index", "?") + "] -> " + pod.node +
             " (" + pod.pool + ")\n";
  }
  INFO(where);
  REQUIRE(placed);  // two groups of a leader and three workers, each pod on a host
  auto pools = PoolsByGroup(pods, "leaderworkerset.sigs.k8s.io/group-index");
  REQUIRE(pools.size() == 2);
  std::set<std::string> used;
  for (const auto& [group, group_pools] : pools) {
    CHECK(group_pools.size() == 1);
    CHECK(group_pools.begin()->rfind("vllm-v6e-", 0) == 0);
    CHECK(used.insert(*group_pools.begin()).second);
  }
  // Only the leaders carry the role the Service selects: one address per group behind it.
  int leaders = 0;
  for (const auto& pod : pods) leaders += pod.labels.value("role", "") == "leader" ? 1 : 0;
  CHECK(leaders == 2);
}

}  // namespace
}  // namespace tputrain::testing
