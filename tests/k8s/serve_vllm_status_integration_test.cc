// `tputrain serve status` asks the vLLM server behind each vLLM Deployment and LeaderWorkerSet
// (its /health, /v1/models and /metrics) through the real kube-apiserver's service proxy. The
// server is a SIMULATOR of vLLM's API (llm-d-inference-sim; real vLLM does not install on these
// CPU machines) in a network namespace playing the pod. Its port stays closed until the test
// starts it, as vLLM's does while it loads: that is "loading", not an error.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "k8s/apiserver_fixture.h"
#include "k8s/k8s_test_util.h"
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

// What `serve up --engine vllm --tpu-type TPU --dry-run` would apply, created in `ns` as the API
// server stores it (a LeaderWorkerSet needs LWS's CRD, whose schema then validates it).
std::vector<nlohmann::json> CreateRendered(ApiServer& server, const std::string& ns, const std::string& tpu_type) {
  auto rendered = Tputrain({"serve", "up", "--engine", "vllm", "--model", "org/model", "--tpu-type", tpu_type,
                            "--dry-run", "--format", "json"});
  INFO(rendered.err);
  REQUIRE(rendered.exit_code == 0);
  const auto printed = nlohmann::json::parse(rendered.out);
  std::vector<nlohmann::json> objects;
  for (const auto& object : printed["objects"]) {
    const std::string kind = object["kind"];
    const std::string path = kind == "Deployment" ? "/apis/apps/v1/namespaces/" + ns + "/deployments"
                             : kind == "LeaderWorkerSet"
                                 ? "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns + "/leaderworkersets"
                                 : "/api/v1/namespaces/" + ns + "/services";
    CreateObject(server.admin(), path, object);
    objects.push_back(object);
  }
  return objects;
}

// The endpoints controller, played (tests/k8s/PLAYED.md): Endpoints of `service` at `ip`, pod `pod`'s.
void PlayEndpoints(k8s::Client& admin, const std::string& ns, const std::string& service, int port,
                   const std::string& ip, const std::string& pod) {
  CreateObject(admin, "/api/v1/namespaces/" + ns + "/endpoints",
               {{"apiVersion", "v1"},
                {"kind", "Endpoints"},
                {"metadata", {{"name", service}}},
                {"subsets",
                 {{{"addresses", {{{"ip", ip}, {"targetRef", {{"kind", "Pod"}, {"name", pod}, {"namespace", ns}}}}}},
                   {"ports", {{{"name", "http"}, {"port", port}}}}}}}});
}

// The controllers, played: the server's pod at the simulator's address, Ready, behind vllm-service.
void PlayServerPod(ApiServer& server, const std::string& ns, const std::string& ip, const nlohmann::json& labels) {
  const std::string pod = "vllm-tpu-0";
  CreateObject(server.admin(), "/api/v1/namespaces/" + ns + "/pods",
               {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", pod}, {"labels", labels}}},
                {"spec", {{"containers", {{{"name", "vllm"}, {"image", "vllm/vllm-tpu"}}}}}}});
  WriteStatus(server.admin(), "/api/v1/namespaces/" + ns + "/pods/" + pod,
              {{"phase", "Running"}, {"podIP", ip}, {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}});
  PlayEndpoints(server.admin(), ns, "vllm-service", NetnsVllmSim::kHttpPort, ip, pod);
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
  auto& server = ApiServer::Shared();
  const std::string ns = server.NewNamespace("vllm-st");
  const std::string kubeconfig = server.WriteKubeconfig("vllm-st-" + ns, server.admin_token(), ns);
  CreateRendered(server, ns, "v6e-8");
  PlayServerPod(server, ns, sim.ip(), {{"app", "vllm-tpu"}});

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
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  const std::string ns = server.NewNamespace("vllm-lws-st");
  const std::string kubeconfig = server.WriteKubeconfig("vllm-lws-st-" + ns, server.admin_token(), ns);
  auto objects = CreateRendered(server, ns, "v6e-16");
  REQUIRE(objects.size() == 2);
  // The leader pod as LWS labels it: the Service selects the set's name and role leader.
  PlayServerPod(server, ns, sim.ip(),
                {{"leaderworkerset.sigs.k8s.io/name", "vllm-tpu"}, {"role", "leader"}, {"app", "vllm-tpu"}});

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
