// Each seed's workload, rendered by tputrain and applied to a GKE cluster made on the emulator, runs
// on the real control plane: KubeRay, LeaderWorkerSet and JobSet, the scheduler and the controller
// manager, over kwok nodes made from the emulator's node pools. With two node pools of the same
// topology present, every slice's pods must land on ONE pool, as GKE needs (a multi-host slice is
// one node pool). (A slice no pool can take, and the rule's absence: raycluster_plane_integration_test.)
#include <map>

#include <catch2/catch.hpp>

#include "k8s/emulated_gke.h"
#include "k8s/k8s_test_util.h"

namespace tputrain::testing {
namespace {

ControlPlane& Plane() {
  ControlPlaneOptions options;
  options.pod_end = PodEnd::kRunForever;  // serving JobSets must not "complete"
  options.kuberay = options.lws = options.jobset = true;
  return ControlPlane::Shared(options);
}

ProcessResult Ok(EmulatedGke& gke, const std::vector<std::string>& args, const std::string& stdin_text = "") {
  auto result = gke.Tputrain(args, stdin_text);
  std::string command = "tputrain";
  for (const auto& arg : args) command += " " + arg;
  INFO(command << "\nstdout: " << result.out << "\nstderr: " << result.err);
  REQUIRE(result.exit_code == 0);
  return result;
}

std::string SeedValues(const std::string& name) {
  return std::string(TPUTRAIN_SOURCE_DIR) + "/tests/render/seed-values/" + name + ".yaml";
}

std::string NameOf(const std::string& yaml, const std::string& kind) {
  for (const auto& object : Parse(yaml)) {
    if (object.kind == kind) return object.name;
  }
  throw std::runtime_error("no " + kind + " in the rendered manifests");
}

void CreateServiceAccount(k8s::Client& admin, const std::string& ns, const std::string& name) {
  CreateObject(admin, "/api/v1/namespaces/" + ns + "/serviceaccounts",
               {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", name}}}});
}

// Every group (slice) on one pool of `pool_prefix`, no two groups on the same pool, and every pod
// scheduled.
void CheckOnePoolPerSlice(const std::vector<PodPlacement>& placements, const std::string& group_label, size_t groups,
                          const std::string& pool_prefix) {
  std::string where;
  for (const auto& placement : placements) {
    where += placement.pod + " [" + placement.labels.value(group_label, "?") + "] -> " + placement.node + " (" +
             placement.pool + ")\n";
  }
  INFO(where);
  for (const auto& placement : placements) REQUIRE_FALSE(placement.node.empty());
  auto pools = PoolsByGroup(placements, group_label);
  REQUIRE(pools.size() == groups);
  std::set<std::string> used;
  for (const auto& [group, group_pools] : pools) {
    CHECK(group_pools.size() == 1);
    CHECK(group_pools.begin()->rfind(pool_prefix, 0) == 0);
    CHECK(used.insert(*group_pools.begin()).second);
  }
}

TEST_CASE("seed 000/001: each slice of the RayCluster's TPU worker group runs on one of two 4x4 node pools",
          "[integration]") {
  auto& plane = Plane();
  auto& admin = plane.server().admin();
  EmulatedGke gke(plane);
  const std::vector<std::string> at = {"--cluster", "ray-tpu", "--location", "us-east5-b"};
  Ok(gke, {"cluster", "create", "ray-tpu", "--location", "us-east5-b", "--ray-operator", "--machine-type",
           "n1-standard-16", "--run", "seed001"});
  for (const char* pool : {"v6e-16-a", "v6e-16-b"}) {
    Ok(gke, {"nodepool", "create", pool, "--cluster", "ray-tpu", "--location", "us-east5-b", "--machine-type",
             "ct6e-standard-4t", "--tpu-topology", "4x4", "--run", "seed001"});
  }
  auto pools = gke.Sync();
  REQUIRE(pools.size() == 3);  // default-pool (CPU, for the head) and the two slices

  std::string ns = gke.Namespace("seed001");
  CreateServiceAccount(admin, ns, "ray-maxtext-ksa");
  auto rendered =
      Ok(gke, {"render", "raycluster-maxtext", "--values", SeedValues("raycluster-maxtext"), "--set", "NUM_SLICES=2"});
  std::string name = NameOf(rendered.out, "RayCluster");
  std::vector<std::string> apply = {"apply", "-f", "-", "-n", ns};
  apply.insert(apply.end(), at.begin(), at.end());
  Ok(gke, apply, rendered.out);
  std::vector<std::string> wait = {"wait", "raycluster/" + name, "--for", "ready", "--timeout", "2m", "-n", ns};
  wait.insert(wait.end(), at.begin(), at.end());
  Ok(gke, wait);

  auto workers = PodPlacements(admin, ns, "ray.io/node-type=worker");
  REQUIRE(workers.size() == 8);  // 2 slices x 4 hosts
  CheckOnePoolPerSlice(workers, "ray.io/worker-group-replica-name", 2, "v6e-16-");
  auto head = PodPlacements(admin, ns, "ray.io/node-type=head");
  REQUIRE(head.size() == 1);
  CHECK(head[0].pool == "default-pool");
}

TEST_CASE("flex-start and spot pools the emulator made are Nodes with GKE's labels; a slice runs on each flex pool",
          "[integration]") {
  auto& plane = Plane();
  auto& admin = plane.server().admin();
  EmulatedGke gke(plane);
  const std::vector<std::string> at = {"--cluster", "flex", "--location", "us-east5-b"};
  Ok(gke,
     {"cluster", "create", "flex", "--location", "us-east5-b", "--machine-type", "n1-standard-16", "--run", "flex"});
  // Two v6e-16 slices from flex-start (pools flex-0, flex-1), and a spot v6e-8 pool.
  Ok(gke, {"nodepool", "create", "flex", "--cluster", "flex", "--location", "us-east5-b", "--tpu-type", "v6e-16",
           "--num-slices", "2", "--capacity", "flex-start", "--run", "flex"});
  Ok(gke, {"nodepool", "create", "spot", "--cluster", "flex", "--location", "us-east5-b", "--tpu-type", "v6e-8",
           "--capacity", "spot", "--run", "flex"});
  gke.Sync();
  auto nodes = admin.GetJson("/api/v1/nodes?labelSelector=" + http::UrlEncode("cloud.google.com/gke-nodepool"), "");
  REQUIRE(nodes);
  std::map<std::string, int> flex_by_pool;
  int spot = 0;
  for (const auto& node : (*nodes)["items"]) {
    const auto& labels = node["metadata"]["labels"];
    const std::string pool = labels.value("cloud.google.com/gke-nodepool", "");
    if (pool.rfind("flex-", 0) == 0) {
      ++flex_by_pool[pool];
      CHECK(labels.value("cloud.google.com/gke-flex-start", "") == "true");
      CHECK_FALSE(labels.contains("cloud.google.com/gke-spot"));
      CHECK(labels.value("cloud.google.com/gke-tpu-topology", "") == "4x4");
    } else if (pool == "spot") {
      ++spot;
      CHECK(labels.value("cloud.google.com/gke-spot", "") == "true");
      CHECK(labels.value("cloud.google.com/gke-tpu-topology", "") == "2x4");
    } else {
      continue;
    }
    CHECK(labels.value("cloud.google.com/gke-tpu-accelerator", "") == "tpu-v6e-slice");
    CHECK(node["status"]["capacity"].value("google.com/tpu", "") == "4");
    CHECK(node["spec"]["taints"].dump().find("google.com/tpu") != std::string::npos);
  }
  // A flex-start pool has no node until a workload asks; here its hosts stand as if asked for.
  CHECK(flex_by_pool == std::map<std::string, int>{{"flex-0", 4}, {"flex-1", 4}});
  CHECK(spot == 2);

  std::string ns = gke.Namespace("flex");
  CreateServiceAccount(admin, ns, "ray-maxtext-ksa");
  auto rendered =
      Ok(gke, {"render", "raycluster-maxtext", "--values", SeedValues("raycluster-maxtext"), "--set", "NUM_SLICES=2"});
  std::string name = NameOf(rendered.out, "RayCluster");
  std::vector<std::string> apply = {"apply", "-f", "-", "-n", ns};
  apply.insert(apply.end(), at.begin(), at.end());
  Ok(gke, apply, rendered.out);
  std::vector<std::string> wait = {"wait", "raycluster/" + name, "--for", "ready", "--timeout", "2m", "-n", ns};
  wait.insert(wait.end(), at.begin(), at.end());
  Ok(gke, wait);
  CheckOnePoolPerSlice(PodPlacements(admin, ns, "ray.io/node-type=worker"), "ray.io/worker-group-replica-name", 2,
                       "flex-");
}

TEST_CASE("seed 002: the JetStream LeaderWorkerSet's group runs on one of two 4x4 node pools", "[integration]") {
  auto& plane = Plane();
  auto& admin = plane.server().admin();
  EmulatedGke gke(plane);
  const std::vector<std::string> at = {"--cluster", "jetstream", "--location", "us-east5"};
  Ok(gke, {"cluster", "create", "jetstream", "--location", "us-east5", "--machine-type", "n2-standard-32", "--run",
           "seed002"});
  for (const char* pool : {"multihost-a", "multihost-b"}) {
    Ok(gke, {"nodepool", "create", pool, "--cluster", "jetstream", "--location", "us-east5", "--node-locations",
             "us-east5-b", "--machine-type", "ct6e-standard-4t", "--num-nodes", "4", "--tpu-topology", "4x4",
             "--placement-type", "COMPACT", "--run", "seed002"});
  }
  gke.Sync();
  std::string ns = gke.Namespace("seed002");
  auto rendered = Ok(gke, {"render", "jetstream-pathways-405b", "--values", SeedValues("jetstream-pathways-405b")});
  std::string name = NameOf(rendered.out, "LeaderWorkerSet");
  std::vector<std::string> apply = {"apply", "-f", "-", "-n", ns};
  apply.insert(apply.end(), at.begin(), at.end());
  Ok(gke, apply, rendered.out);
  std::vector<std::string> wait = {"wait", "lws/" + name, "--for", "ready", "--timeout", "2m", "-n", ns};
  wait.insert(wait.end(), at.begin(), at.end());
  Ok(gke, wait);

  auto pods = PodPlacements(admin, ns, "leaderworkerset.sigs.k8s.io/name=" + name);
  REQUIRE(pods.size() == 5);  // the leader and four TPU workers
  CheckOnePoolPerSlice(pods, "leaderworkerset.sigs.k8s.io/group-index", 1, "multihost-");
}

TEST_CASE("seed 002 disaggregated: each LWS subgroup runs on its own 2x4 node pool", "[integration]") {
  auto& plane = Plane();
  auto& admin = plane.server().admin();
  EmulatedGke gke(plane);
  const std::vector<std::string> at = {"--cluster", "disagg", "--location", "us-east5"};
  Ok(gke, {"cluster", "create", "disagg", "--location", "us-east5", "--machine-type", "n2-standard-32", "--run",
           "seed002d"});
  // Two slices of v6e-8 (2x4, 2 hosts each): pools disagg-0 and disagg-1.
  Ok(gke, {"nodepool", "create", "disagg", "--cluster", "disagg", "--location", "us-east5", "--node-locations",
           "us-east5-b", "--tpu-type", "v6e-8", "--num-slices", "2", "--run", "seed002d"});
  gke.Sync();
  std::string ns = gke.Namespace("seed002d");
  auto rendered =
      Ok(gke, {"render", "jetstream-pathways-disagg-70b", "--values", SeedValues("jetstream-pathways-disagg-70b")});
  std::string name = NameOf(rendered.out, "LeaderWorkerSet");
  std::vector<std::string> apply = {"apply", "-f", "-", "-n", ns};
  apply.insert(apply.end(), at.begin(), at.end());
  Ok(gke, apply, rendered.out);
  std::vector<std::string> wait = {"wait", "lws/" + name, "--for", "ready", "--timeout", "2m", "-n", ns};
  wait.insert(wait.end(), at.begin(), at.end());
  Ok(gke, wait);

  auto pods = PodPlacements(admin, ns, "leaderworkerset.sigs.k8s.io/name=" + name);
  REQUIRE(pods.size() == 5);  // the leader with two workers, and two more workers
  CheckOnePoolPerSlice(pods, "leaderworkerset.sigs.k8s.io/subgroup-index", 2, "disagg-");
}

TEST_CASE("seed 003: each Job of the Saxml JobSet (2 slices) runs on one of two 4x8 node pools", "[integration]") {
  auto& plane = Plane();
  auto& admin = plane.server().admin();
  EmulatedGke gke(plane);
  const std::vector<std::string> at = {"--cluster", "saxml", "--location", "us-east5-b"};
  Ok(gke, {"cluster", "create", "saxml", "--location", "us-east5-b", "--machine-type", "n2-standard-32", "--run",
           "seed003"});
  Ok(gke, {"nodepool", "create", "sax", "--cluster", "saxml", "--location", "us-east5-b", "--tpu-type", "v5litepod-32",
           "--num-slices", "2", "--run", "seed003"});
  gke.Sync();
  std::string ns = gke.Namespace("seed003");
  auto rendered = Ok(gke, {"render", "saxml", "--values", SeedValues("saxml")});
  std::string name = NameOf(rendered.out, "JobSet");
  std::vector<std::string> apply = {"apply", "-f", "-", "-n", ns};
  apply.insert(apply.end(), at.begin(), at.end());
  Ok(gke, apply, rendered.out);
  std::vector<std::string> wait = {"wait", "jobset/" + name, "--for", "ready", "--timeout", "2m", "-n", ns};
  wait.insert(wait.end(), at.begin(), at.end());
  Ok(gke, wait);

  auto pods = PodPlacements(admin, ns, "jobset.sigs.k8s.io/jobset-name=" + name);
  REQUIRE(pods.size() == 16);  // 2 slices x 8 hosts
  CheckOnePoolPerSlice(pods, "jobset.sigs.k8s.io/job-index", 2, "sax-");
}

TEST_CASE("seed 002's checkpoint converter: the Job's pod runs on the high-memory pool it names, and completes",
          "[integration]") {
  auto& plane = Plane();
  auto& admin = plane.server().admin();
  EmulatedGke gke(plane);
  const std::vector<std::string> at = {"--cluster", "convert", "--location", "us-east5"};
  Ok(gke, {"cluster", "create", "convert", "--location", "us-east5", "--machine-type", "n2-standard-32", "--run",
           "seed002c"});
  Ok(gke, {"nodepool", "create", "m1-pool", "--cluster", "convert", "--location", "us-east5", "--node-locations",
           "us-east5-b", "--machine-type", "m1-ultramem-160", "--num-nodes", "1", "--run", "seed002c"});
  gke.Sync();
  std::string ns = gke.Namespace("seed002c");
  auto rendered = Ok(gke, {"render", "checkpoint-converter", "--values", SeedValues("checkpoint-converter")});
  std::string name = NameOf(rendered.out, "Job");
  std::vector<std::string> apply = {"apply", "-f", "-", "-n", ns};
  apply.insert(apply.end(), at.begin(), at.end());
  Ok(gke, apply, rendered.out);

  // The Job controller makes its pod, the scheduler puts it on the pool the template names, and
  // kwok runs it until the test ends it as the converter would end: exit 0.
  std::string pod = plane.WaitScheduledPod(ns, "batch.kubernetes.io/job-name=" + name);
  auto placed = PodPlacements(admin, ns, "batch.kubernetes.io/job-name=" + name);
  REQUIRE(placed.size() == 1);
  CHECK(placed[0].pool == "m1-pool");
  REQUIRE(WaitFor(
      [&] {
        auto got = admin.GetJson("/api/v1/namespaces/" + ns + "/pods/" + pod, "");
        return got && (*got)["status"].value("phase", "") == "Running";
      },
      std::chrono::seconds(60)));
  plane.EndPod(ns, pod, 0);
  std::vector<std::string> wait = {"wait", "job/" + name, "--for", "ready", "--timeout", "2m", "-n", ns};
  wait.insert(wait.end(), at.begin(), at.end());
  Ok(gke, wait);
}

}  // namespace
}  // namespace tputrain::testing
