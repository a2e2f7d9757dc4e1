// `tputrain serve status` asks the vLLM server behind each vLLM Deployment and LeaderWorkerSet
// (its /health, /v1/models and /metrics) through the real kube-apiserver's service proxy. The
// server is a SIMULATOR of vLLM's API (llm-d-inference-sim; real vLLM does not install on these
// CPU machines) in a network namespace at the pod's address. Its port stays closed until the test
// starts it, as vLLM's does while it loads: that is "loading", not an error. The pods are real:
// what `serve up --engine vllm --dry-run` renders, made by the real Deployment and LeaderWorkerSet
// controllers, bound by the real scheduler to v6e hosts (kwok their kubelet) and listed by the
// real endpoints controller; the harness plays only the container runtime.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "k8s/apiserver_fixture.h"
#include "k8s/control_plane.h"
#include "k8s/k8s_test_util.h"
#include "k8s/kwok_nodes.h"
#include "k8s/netns_vllm_sim.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

ProcessResult Tputrain(std::vector<std::string> args) {
  ProcessOptions options;
  options.argv = {TputrainBinary()};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  return RunProcess(options, std::chrono::seconds(120));
}

// The control plane with LeaderWorkerSet, a v6e-8 host (one 2x4 slice) for the Deployment and a
// v6e-16 slice (4 hosts, 4x4) for the LeaderWorkerSet. Every vLLM pod answers only once served.
ControlPlane& Plane() {
  ControlPlaneOptions options;
  options.pod_end = PodEnd::kRunForever;
  options.lws = true;
  options.answering_pods = {{"app", "vllm-tpu"}};  // both templates' pods
  auto& plane = ControlPlane::Shared(options);
  static const bool pools = [&] {
    AddNodePool(plane.server().admin(), ShapeOfGkePool("vllm-st", "us-east5-b",
                                                       {{"name", "v6e-8-pool"},
                                                        {"initialNodeCount", 1},
                                                        {"config", {{"machineType", "ct6e-standard-8t"}}},
                                                        {"placementPolicy", {{"tpuTopology", "2x4"}}}}));
    AddNodePool(plane.server().admin(), V6eSlicePool("vllm-st", "v6e-16-pool"));
    return true;
  }();
  (void)pools;
  return plane;
}

// What `serve up --engine vllm --tpu-type TPU --dry-run` would apply, created in `ns`; returns
// the pod that answers (the Deployment's, or the LeaderWorkerSet's leader) once it is bound.
std::string CreateRendered(ControlPlane& plane, const std::string& ns, const std::string& tpu_type) {
  // No cluster at hand (no KUBECONFIG, no ~/.kube/config), whatever the test runner's: the dry run
  // only renders and shows the objects.
  auto rendered = RunProcess({.argv = {TputrainBinary(), "serve", "up", "--engine", "vllm", "--model", "org/model",
                                       "--tpu-type", tpu_type, "--dry-run", "--format", "json"},
                              .env = {{"KUBECONFIG", std::nullopt}, {"HOME", "/nonexistent"}}},
                             std::chrono::seconds(120));
  INFO(rendered.err);
  REQUIRE(rendered.exit_code == 0);
  const auto printed = nlohmann::json::parse(rendered.out);
  bool lws = false;
  for (const auto& object : printed["objects"]) {
    const std::string kind = object["kind"];
    lws = lws || kind == "LeaderWorkerSet";
    const std::string path = kind == "Deployment" ? "/apis/apps/v1/namespaces/" + ns + "/deployments"
                             : kind == "LeaderWorkerSet"
                                 ? "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns + "/leaderworkersets"
                                 : "/api/v1/namespaces/" + ns + "/services";
    CreateObject(plane.server().admin(), path, object);
  }
  return plane.WaitScheduledPod(ns, lws ? "app=vllm-tpu,role=leader" : "app=vllm-tpu");
}

// The answering pod served at the simulator's address and listed behind vllm-service.
void ServeAt(ControlPlane& plane, const std::string& ns, const std::string& pod, const std::string& ip) {
  plane.ServePodAt(ns, pod, ip);
  WaitEndpoint(plane.server().admin(), ns, "vllm-service", ip);
}

nlohmann::json StatusRows(const std::string& kubeconfig) {
  auto status = Tputrain({"serve", "status", "--kubeconfig", kubeconfig, "--format", "json"});
  INFO(status.err);
  REQUIRE(status.exit_code == 0);
  return nlohmann::json::parse(status.out);
}

TEST_CASE("serve status: a vLLM Deployment whose port is closed is loading; once it serves, its models and metrics",
          "[integration]") {
  NetnsVllmSim sim(/*start=*/false);
  auto& plane = Plane();
  auto& server = plane.server();
  const std::string ns = server.NewNamespace("vllm-st");
  const std::string kubeconfig = server.WriteKubeconfig("vllm-st-" + ns, server.admin_token(), ns);
  ServeAt(plane, ns, CreateRendered(plane, ns, "v6e-8"), sim.ip());

  auto rows = StatusRows(kubeconfig);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["engine"] == "vllm");
  CHECK(rows[0]["server"]["state"] == "loading");
  const std::string detail = rows[0]["server"]["detail"];
  CHECK(detail.find("connection refused") != std::string::npos);
  CHECK_FALSE(rows[0]["server"].contains("metrics"));
  // The table says so too, and the command succeeds: loading is no failure.
  auto table = Tputrain({"serve", "status", "--kubeconfig", kubeconfig});
  INFO(table.err);
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("loading") != std::string::npos);
  CHECK(table.out.find("vllm-tpu: the API server's service proxy") != std::string::npos);

  sim.Start();
  // Two answers, straight to the simulator: its counters are what status shows.
  int64_t generated = 0;
  for (const char* prompt : {"one two three", "four five"}) {
    const auto direct =
        sim.PostDirect("/v1/completions", {{"model", NetnsVllmSim::kModel}, {"prompt", prompt}, {"max_tokens", 8}});
    REQUIRE(direct["http_status"] == 200);
    generated += direct["usage"]["completion_tokens"].get<int64_t>();
  }
  rows = StatusRows(kubeconfig);
  REQUIRE(rows.size() == 1);
  const auto& served = rows[0]["server"];
  INFO(served.dump());
  CHECK(served["state"] == "serving");
  CHECK_FALSE(served.contains("detail"));
  CHECK(served["models"] == nlohmann::json::array({NetnsVllmSim::kModel}));
  const auto& metrics = served["metrics"];
  CHECK(metrics["num_requests_running"] == 0);
  CHECK(metrics["num_requests_waiting"] == 0);
  CHECK(metrics["kv_cache_usage_perc"] == 0);
  CHECK(metrics["generation_tokens_total"] == generated);
  CHECK(metrics["request_success_total"] == 2);
  CHECK(metrics.contains("time_to_first_token_mean_s"));

  table = Tputrain({"serve", "status", "--kubeconfig", kubeconfig});
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("serving") != std::string::npos);
  CHECK(table.out.find(NetnsVllmSim::kModel) != std::string::npos);
  CHECK(table.out.find("0%") != std::string::npos);
}

TEST_CASE("serve status: a multi-host vLLM LeaderWorkerSet (v6e-16) is asked through the Service on its leader",
          "[integration]") {
  NetnsVllmSim sim;
  auto& plane = Plane();
  auto& server = plane.server();
  const std::string ns = server.NewNamespace("vllm-lws-st");
  const std::string kubeconfig = server.WriteKubeconfig("vllm-lws-st-" + ns, server.admin_token(), ns);
  // The leader LWS made, as the Service selects it (the set's name, role leader).
  ServeAt(plane, ns, CreateRendered(plane, ns, "v6e-16"), sim.ip());

  const auto rows = StatusRows(kubeconfig);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["kind"] == "lws");
  CHECK(rows[0]["engine"] == "vllm");
  CHECK(rows[0]["service"] == "vllm-service");
  INFO(rows[0].dump());
  CHECK(rows[0]["server"]["state"] == "serving");
  CHECK(rows[0]["server"]["models"] == nlohmann::json::array({NetnsVllmSim::kModel}));
  CHECK(rows[0]["server"]["metrics"]["num_requests_running"] == 0);
}

}  // namespace
}  // namespace tputrain::testing
