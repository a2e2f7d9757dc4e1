// `tputrain serve ... --engine saxml` (seed 003) against the real kube-apiserver and the real
// control plane (JobSet, the Deployment and Job controllers, the scheduler, kwok on two v5e 4x8
// pools and CPU nodes, the endpoints controller, the garbage collector), and sax-http in a network
// namespace serving the sax-http pod: the upstream FastAPI server or the older-shaped stdlib one,
// both on the FAKE `sax` client (tests/testing/fake_sax; Saxml itself cannot run here, no model is
// served). Played still, as a named exception: the LoadBalancer's address (a cloud's controller);
// see PLAYED.md.
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "k8s/apiserver_fixture.h"
#include "k8s/control_plane.h"
#include "k8s/k8s_test_util.h"
#include "k8s/kwok_nodes.h"
#include "k8s/netns_saxml.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

constexpr char kJobSet[] = "sax-model-server-set";
constexpr char kModel[] = "/sax/test/spmd";
constexpr int kModelServerPods = 16;  // 2 slices of v5litepod-32, a pod per TPU VM (8 hosts)

struct SaxmlRun {
  std::string kubeconfig;
  std::string state_dir;
  // `on_cluster`: the command takes --kubeconfig (cleanup finds the cluster in the run ledger).
  ProcessOptions Options(std::vector<std::string> args, bool on_cluster = true) const {
    ProcessOptions options;
    options.argv = {TputrainBinary()};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    if (on_cluster) options.argv.insert(options.argv.end(), {"--kubeconfig", kubeconfig});
    options.env = {{"TPUTRAIN_BUCKET", "sax-bucket"},
                   {"TPUTRAIN_RUN", "r-saxml"},
                   {"XDG_STATE_HOME", state_dir},
                   {"KUBECONFIG", std::nullopt}};
    return options;
  }
  ProcessResult Run(std::vector<std::string> args, bool on_cluster = true) const {
    return RunProcess(Options(std::move(args), on_cluster), std::chrono::seconds(300));
  }
};

bool Exists(k8s::Client& admin, const std::string& path) {
  auto response = admin.Send("GET", path, "", "");
  return response && response->status == 200;
}

std::string Paths(const std::string& ns, const std::string& rest) { return "/namespaces/" + ns + "/" + rest; }

// The control plane of this binary: JobSet, pods that run until ended, sax-http's pod served by the
// namespace where the test says; CPU nodes for the admin server and sax-http.
ControlPlane& Plane() {
  ControlPlaneOptions options;
  options.pod_end = PodEnd::kRunForever;  // a serving JobSet never completes
  options.jobset = true;
  options.answering_pods = {{"app", "sax-http"}};
  auto& plane = ControlPlane::Shared(options);
  AddNodePool(plane.server().admin(), CpuPool("saxml"));
  return plane;
}

// Seed 003's two v5e 4x8 slices as GKE makes them (8 hosts each), for one test: its namespace goes
// first at the end (a JobSet left behind would take the next test's nodes), then the pools.
class SlicePools {
 public:
  explicit SlicePools(k8s::Client& admin) : admin_(admin) {
    for (const char* pool : {"v5e-4x8-a", "v5e-4x8-b"}) {
      AddNodePool(admin, ShapeOfGkePool("saxml", "us-west4-a",
                                        {{"name", pool},
                                         {"initialNodeCount", 8},
                                         {"config", {{"machineType", "ct5lp-hightpu-4t"}}},
                                         {"placementPolicy", {{"tpuTopology", "4x8"}}}}));
    }
  }
  ~SlicePools() {
    for (const auto& ns : namespaces_) {
      (void)admin_.Send("DELETE", "/api/v1/namespaces/" + ns);
      WaitFor(
          [&] {
            auto pods = admin_.GetJson("/api/v1/namespaces/" + ns + "/pods", "");
            return pods && (*pods)["items"].empty();
          },
          std::chrono::seconds(60));
    }
    RemoveNodePools(admin_, "saxml", {"cpu-pool"});
  }
  SlicePools(const SlicePools&) = delete;
  SlicePools& operator=(const SlicePools&) = delete;
  const std::string& Own(const std::string& ns) { return namespaces_.emplace_back(ns); }

 private:
  k8s::Client& admin_;
  std::vector<std::string> namespaces_;
};

// Once tputrain has applied seed 003: sax-http's pod (made by its Deployment, placed by the
// scheduler) runs at `sax_http_ip`, and the endpoints controller lists it behind sax-http-lb. The
// rest (the admin server, the JobSet's model servers) kwok runs as they are placed.
void ServeSaxHttp(ControlPlane& plane, const std::string& ns, const std::string& sax_http_ip) {
  plane.ServePodAt(ns, plane.WaitScheduledPod(ns, "app=sax-http"), sax_http_ip);
  WaitEndpoint(plane.server().admin(), ns, "sax-http-lb", sax_http_ip);
}

std::string BestCandidate(const nlohmann::json& answer) {
  const nlohmann::json& candidates = answer.is_object() ? answer.at("generate_response") : answer;
  auto best = std::max_element(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
    return a[1].template get<double>() < b[1].template get<double>();
  });
  return (*best)[0].get<std::string>();
}

struct StateDir {
  std::string path;
  StateDir() {
    char name[] = "/tmp/tputrain-saxml-state-XXXXXX";
    if (mkdtemp(name) == nullptr) throw std::runtime_error("mkdtemp failed");
    path = name;
  }
  ~StateDir() { std::filesystem::remove_all(path); }
};

TEST_CASE(
    "serve up --engine saxml: seed 003 applied, its servers awaited, the model published and awaited through "
    "sax-http; generate, list, re-run; cleanup unpublishes and leaves nothing",
    "[integration]") {
  auto& plane = Plane();
  auto& server = plane.server();
  SlicePools pools(server.admin());
  NetnsSaxHttp sax(SaxHttpVariant::kUpstreamFastApi, /*load_seconds=*/2);
  const std::string ns = pools.Own(server.NewNamespace("saxml"));
  StateDir state;
  SaxmlRun run{server.WriteKubeconfig("saxml-" + ns, server.admin_token(), ns), state.path};
  const std::string jobset_path = "/apis/jobset.x-k8s.io/v1alpha2" + Paths(ns, "jobsets/") + kJobSet;

  // --dry-run: the server validates the five objects (privileged pods admitted), nothing stays.
  auto dry = run.Run({"serve", "up", "--model", "saxml-175b-test", "--dry-run", "--format", "json"});
  INFO(dry.err);
  REQUIRE(dry.exit_code == 0);
  const auto plan = nlohmann::json::parse(dry.out);
  CHECK(plan["applied"].size() == 5);
  CHECK(plan["would_publish"] ==
        nlohmann::json{{"model", kModel},
                       {"model_path", "saxml.server.pax.lm.params.lm_cloud.LmCloudSpmd175B32Test"},
                       {"checkpoint", "None"},
                       {"replicas", 2}});
  CHECK_FALSE(Exists(server.admin(), jobset_path));

  ScopedProcess up(run.Options({"serve", "up", "--model", "saxml-175b-test", "--timeout", "4m"}));
  const bool applied = WaitFor([&] { return Exists(server.admin(), jobset_path); }, std::chrono::seconds(60));
  INFO("serve up: " << up.ReadErr());
  REQUIRE(applied);
  // Not a LoadBalancer unless --expose: sax-http is reached through the API server.
  auto service = server.admin().GetJson("/api/v1" + Paths(ns, "services/sax-http-lb"), "");
  REQUIRE(service);
  CHECK((*service)["spec"]["type"] == "ClusterIP");
  ServeSaxHttp(plane, ns, sax.ip());
  REQUIRE(WaitFor([&] { return !up.running(); }, std::chrono::minutes(3)));
  INFO(up.ReadErr());
  REQUIRE(up.Stop() == 0);
  CHECK(up.ReadOut().find("Serving /sax/test/spmd (2 replicas on v5litepod-32, " + ns + "/" + kJobSet + ")") !=
        std::string::npos);
  CHECK(up.ReadErr().find("model servers 16/16 pods ready") != std::string::npos);
  CHECK(up.ReadErr().find("2/2 replicas active") != std::string::npos);
  const std::string sax_log = sax.Log();
  INFO(sax_log);
  CHECK(sax_log.find("POST /publish HTTP/1.1\" 200") != std::string::npos);

  // A serving JobSet is ready with its pods, not when it completes (it never does).
  auto waited = run.Run({"wait", std::string("jobset/") + kJobSet, "--timeout", "30s"});
  INFO(waited.err);
  CHECK(waited.exit_code == 0);

  // The answer sax-http gives to a direct request, through the API server.
  const std::string query = "Q: What is the capital of France? A:";
  auto direct = sax.Direct("POST", "/generate", {{"model", kModel}, {"query", query}});
  REQUIRE(direct.status == 200);
  auto asked = run.Run({"serve", "generate", "--engine", "saxml", "--query", query, "--format", "json"});
  INFO(asked.err);
  REQUIRE(asked.exit_code == 0);
  const auto answer = nlohmann::json::parse(asked.out);
  CHECK(answer["text"] == BestCandidate(direct.Json()));
  CHECK(answer["model"] == kModel);
  CHECK(answer["service"] == "sax-http-lb");

  // serve status shows the model servers' JobSet (no LeaderWorkerSet CRD needed to say so).
  auto status = run.Run({"serve", "status", "--format", "json"});
  INFO(status.err);
  REQUIRE(status.exit_code == 0);
  const auto workloads = nlohmann::json::parse(status.out);
  REQUIRE(workloads.size() == 1);
  CHECK(workloads[0]["kind"] == "jobset");
  CHECK(workloads[0]["name"] == kJobSet);
  CHECK(workloads[0]["available"] == true);
  CHECK(workloads[0]["pods_ready"] == kModelServerPods);
  CHECK(workloads[0]["service"] == "sax-http-lb");
  CHECK(workloads[0]["endpoint"] == server.server() + "/api/v1/namespaces/" + ns + "/services/sax-http-lb:8888/proxy/");

  auto listed = run.Run({"serve", "list", "--format", "json"});
  INFO(listed.err);
  REQUIRE(listed.exit_code == 0);
  const auto rows = nlohmann::json::parse(listed.out);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["active_replicas"] == 2);
  CHECK(rows[0]["max_replicas"] == 2);

  // A re-run adopts what is there: the published model is not published twice.
  auto again = run.Run({"serve", "up", "--model", "saxml-175b-test", "--format", "json"});
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  CHECK(nlohmann::json::parse(again.out)["published"] == false);
  CHECK(again.err.find("already published; adopted") != std::string::npos);

  // cleanup: the model unpublished while sax-http runs, then the objects (in the foreground: the
  // garbage collector deletes their pods first).
  auto cleaned = run.Run({"cleanup", "--yes", "--format", "json"}, /*on_cluster=*/false);
  INFO(cleaned.err);
  REQUIRE(cleaned.exit_code == 0);
  const std::string cleanup_out = cleaned.out;
  CHECK(cleanup_out.find("\"unpublished\"") != std::string::npos);
  auto gone = sax.Direct("GET", "/listcell", {{"model", kModel}});
  CHECK(gone.status == 500);
  CHECK(gone.body.find("NOT_FOUND") != std::string::npos);
  for (const std::string& path : {jobset_path, "/apis/apps/v1" + Paths(ns, "deployments/sax-http"),
                                  "/api/v1" + Paths(ns, "services/sax-http-lb")}) {
    INFO(path);
    CHECK_FALSE(Exists(server.admin(), path));
  }
  // The unpublish came before the objects went: sax-http answered it.
  CHECK(sax.Log().find("POST /unpublish HTTP/1.1\" 200") != std::string::npos);
}

TEST_CASE("serve generate and list read the older sax-http's shapes (seed 003's v1.0.0 image)", "[integration]") {
  auto& plane = Plane();
  auto& server = plane.server();
  NetnsSaxHttp sax(SaxHttpVariant::kStdlibV1, /*load_seconds=*/0);
  const std::string ns = server.NewNamespace("saxml-v1");
  StateDir state;
  SaxmlRun run{server.WriteKubeconfig("saxml-" + ns, server.admin_token(), ns), state.path};
  CreateObject(server.admin(), "/api/v1/namespaces/" + ns + "/services",
               {{"apiVersion", "v1"},
                {"kind", "Service"},
                {"metadata", {{"name", "sax-http-lb"}}},
                {"spec", {{"selector", {{"app", "sax-http"}}}, {"ports", {{{"port", 8888}, {"targetPort", 8888}}}}}}});
  // A sax-http pod of the older image, run by kwok where the namespace is.
  CreateObject(server.admin(), "/api/v1/namespaces/" + ns + "/pods",
               {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", "sax-http-0"}, {"labels", {{"app", "sax-http"}}}}},
                {"spec", {{"containers", {{{"name", "sax-http"}, {"image", "sax-http:v1.0.0"}}}}}}});
  ServeSaxHttp(plane, ns, sax.ip());

  // Before anything is published: one line each, in the older server's words.
  auto unknown = run.Run({"serve", "generate", "--engine", "saxml", "--query", "hi"});
  INFO(unknown.err);
  CHECK(unknown.exit_code == 1);
  CHECK(unknown.err.rfind("ERROR: sax-http: NOT_FOUND: model /sax/test/spmd not found (HTTP 400)", 0) == 0);
  CHECK(std::count(unknown.err.begin(), unknown.err.end(), '\n') == 1);
  auto none = run.Run({"serve", "list", "--format", "json"});
  INFO(none.err);
  REQUIRE(none.exit_code == 0);
  CHECK(nlohmann::json::parse(none.out)[0]["published"] == false);

  auto published = sax.Direct("POST", "/publish",
                              {{"model", kModel},
                               {"model_path", "saxml.server.pax.lm.params.lm_cloud.LmCloudSpmd175B32Test"},
                               {"checkpoint", "None"},
                               {"replicas", 1}});
  REQUIRE(published.status == 200);
  auto direct = sax.Direct("POST", "/generate", {{"model", kModel}, {"query", "Q: hi A:"}});
  REQUIRE(direct.status == 200);
  REQUIRE(direct.Json().contains("generate_response"));
  auto asked = run.Run({"serve", "generate", "--engine", "saxml", "--query", "Q: hi A:"});
  INFO(asked.err);
  REQUIRE(asked.exit_code == 0);
  CHECK(asked.out == BestCandidate(direct.Json()) + "\n");
  auto listed = run.Run({"serve", "list", "--model", kModel, "--format", "json"});
  REQUIRE(listed.exit_code == 0);
  CHECK(nlohmann::json::parse(listed.out)[0]["active_replicas"] == 1);

  auto unpublished = run.Run({"serve", "unpublish", "--yes", "--format", "json"});
  INFO(unpublished.err);
  REQUIRE(unpublished.exit_code == 0);
  CHECK(nlohmann::json::parse(unpublished.out)[0]["unpublished"] == true);
  auto twice = run.Run({"serve", "unpublish", "--yes", "--format", "json"});
  REQUIRE(twice.exit_code == 0);
  CHECK(nlohmann::json::parse(twice.out)[0]["unpublished"] == false);
}

TEST_CASE("serve up --engine saxml: an unknown model path, a model that never loads", "[integration]") {
  auto& plane = Plane();
  auto& server = plane.server();
  SlicePools pools(server.admin());
  NetnsSaxHttp sax(SaxHttpVariant::kUpstreamFastApi, /*load_seconds=*/-1);  // never finishes loading
  const std::string ns = pools.Own(server.NewNamespace("saxml-bad"));
  StateDir state;
  SaxmlRun run{server.WriteKubeconfig("saxml-" + ns, server.admin_token(), ns), state.path};
  const std::string jobset_path = "/apis/jobset.x-k8s.io/v1alpha2" + Paths(ns, "jobsets/") + kJobSet;

  SECTION("publish of a servable the cell does not know: sax-http's error, one line") {
    ScopedProcess up(run.Options({"serve", "up", "--engine", "saxml", "--model", "mine", "--model-path",
                                  "saxml.server.pax.lm.params.lm_cloud.NoSuchModel", "--sax-model", "/sax/test/mine",
                                  "--tpu-type", "v5litepod-32", "--replicas", "1", "--timeout", "2m"}));
    REQUIRE(WaitFor([&] { return Exists(server.admin(), jobset_path); }, std::chrono::seconds(60)));
    ServeSaxHttp(plane, ns, sax.ip());
    REQUIRE(WaitFor([&] { return !up.running(); }, std::chrono::minutes(2)));
    CHECK(up.Stop() == 1);
    const std::string err = up.ReadErr();
    INFO(err);
    const std::string last = err.substr(err.rfind("ERROR: "));
    CHECK(last.rfind("ERROR: sax-http: INVALID_ARGUMENT: model path 'saxml.server.pax.lm.params.lm_cloud.NoSuchModel' "
                     "is not servable",
                     0) == 0);
    CHECK(last.find("(HTTP 500)\n") != std::string::npos);
    CHECK(std::count(last.begin(), last.end(), '\n') == 1);
  }

  SECTION("a load that never completes: generate says so, serve up times out") {
    ScopedProcess up(run.Options({"serve", "up", "--model", "saxml-175b-test", "--timeout", "25s"}));
    REQUIRE(WaitFor([&] { return Exists(server.admin(), jobset_path); }, std::chrono::seconds(60)));
    ServeSaxHttp(plane, ns, sax.ip());
    REQUIRE(WaitFor(
        [&] {
          return sax.Direct("GET", "/listcell", {{"model", kModel}}).status == 200;
        },
        std::chrono::minutes(2)));
    auto early = run.Run({"serve", "generate", "--engine", "saxml", "--query", "hi"});
    CHECK(early.exit_code == 1);
    CHECK(early.err.rfind("ERROR: sax-http: UNAVAILABLE: no replica has loaded model /sax/test/spmd", 0) == 0);
    CHECK(std::count(early.err.begin(), early.err.end(), '\n') == 1);
    REQUIRE(WaitFor([&] { return !up.running(); }, std::chrono::minutes(2)));
    CHECK(up.Stop() != 0);
    INFO(up.ReadErr());
    CHECK(up.ReadErr().find("0/2 replicas active") != std::string::npos);
    CHECK(up.ReadErr().find("stopped waiting after 25s") != std::string::npos);
  }
}

// (Played before: a model server in CrashLoopBackOff. Under the real controllers that state never
// shows: the template's backoffLimit 0 fails the Job at the container's first exit, the JobSet
// restarts every slice, and after failurePolicy.maxRestarts (4) the JobSet is Failed.)
TEST_CASE("serve up --engine saxml: a model server that crashes at every start fails the JobSet; serve up says so",
          "[integration]") {
  auto& plane = Plane();
  auto& server = plane.server();
  SlicePools pools(server.admin());
  NetnsSaxHttp sax(SaxHttpVariant::kUpstreamFastApi, /*load_seconds=*/-1);
  const std::string ns = pools.Own(server.NewNamespace("saxml-crash"));
  StateDir state;
  SaxmlRun run{server.WriteKubeconfig("saxml-" + ns, server.admin_token(), ns), state.path};
  const std::string jobset_path = "/apis/jobset.x-k8s.io/v1alpha2" + Paths(ns, "jobsets/") + kJobSet;

  // A timeout far beyond what the JobSet's restarts take: serve up must stop on the JobSet's
  // failure, not on its clock.
  ScopedProcess up(run.Options({"serve", "up", "--model", "saxml-175b-test", "--timeout", "30m"}));
  REQUIRE(WaitFor([&] { return Exists(server.admin(), jobset_path); }, std::chrono::minutes(2)));
  ServeSaxHttp(plane, ns, sax.ip());
  // In each attempt one model server exits 1 as soon as it runs, as a server that cannot start
  // would; each attempt's pods carry the JobSet's restart-attempt label.
  for (int attempt = 0; attempt <= 4; ++attempt) {
    const std::string pod =
        plane.WaitScheduledPod(ns, std::string("jobset.sigs.k8s.io/jobset-name=") + kJobSet +
                                       ",jobset.sigs.k8s.io/restart-attempt=" + std::to_string(attempt));
    plane.EndPod(ns, pod, 1);
  }
  REQUIRE(WaitFor([&] { return !up.running(); }, std::chrono::minutes(5)));
  CHECK(up.Stop() == 1);
  const std::string err = up.ReadErr();
  INFO(err);
  auto jobset = server.admin().GetJson(jobset_path, "");
  REQUIRE(jobset);
  INFO((*jobset)["status"].dump());
  const std::string last = err.substr(err.rfind("ERROR: "));
  CHECK(last.rfind(std::string("ERROR: JobSet ") + kJobSet + " failed after 4 restarts of its model servers (", 0) ==
        0);
  CHECK(last.find("kubectl get pods -l jobset.sigs.k8s.io/jobset-name=" + std::string(kJobSet)) != std::string::npos);
  CHECK(std::count(last.begin(), last.end(), '\n') == 1);
}

TEST_CASE(
    "serve up --expose keeps the seed's LoadBalancer and waits for its address; serve down --dry-run sends nothing",
    "[integration]") {
  auto& plane = Plane();
  auto& server = plane.server();
  SlicePools pools(server.admin());
  NetnsSaxHttp sax(SaxHttpVariant::kUpstreamFastApi, /*load_seconds=*/0);
  const std::string ns = pools.Own(server.NewNamespace("saxml-lb"));
  StateDir state;
  SaxmlRun run{server.WriteKubeconfig("saxml-" + ns, server.admin_token(), ns), state.path};
  const std::string service_path = "/api/v1" + Paths(ns, "services/sax-http-lb");
  ScopedProcess up(run.Options({"serve", "up", "--model", "saxml-175b-test", "--replicas", "1", "--expose", "--timeout",
                                "2m", "--format", "json"}));
  // The JobSet is applied last: with it, every object exists.
  const std::string jobset_path = "/apis/jobset.x-k8s.io/v1alpha2" + Paths(ns, "jobsets/") + kJobSet;
  REQUIRE(WaitFor([&] { return Exists(server.admin(), jobset_path); }, std::chrono::seconds(60)));
  auto service = server.admin().GetJson(service_path, "");
  REQUIRE(service);
  CHECK((*service)["spec"]["type"] == "LoadBalancer");
  ServeSaxHttp(plane, ns, sax.ip());
  REQUIRE(WaitFor([&] { return up.ReadErr().find("waiting for the LoadBalancer's address") != std::string::npos; },
                  std::chrono::minutes(1)));
  CHECK(up.running());
  // A named exception: the cloud's load balancer controller, played (none runs beside a test API
  // server; the address is the one thing it would write).
  WriteStatus(server.admin(), service_path, {{"loadBalancer", {{"ingress", {{{"ip", "203.0.113.7"}}}}}}});
  REQUIRE(WaitFor([&] { return !up.running(); }, std::chrono::minutes(1)));
  INFO(up.ReadErr());
  REQUIRE(up.Stop() == 0);
  const auto answer = nlohmann::json::parse(up.ReadOut());
  CHECK(answer["ingress"] == "203.0.113.7");
  CHECK(answer["active_replicas"] == 1);

  auto dry = run.Run({"serve", "down", "--model", "saxml-175b-test", "--replicas", "1", "--dry-run", "--yes"});
  INFO(dry.err);
  REQUIRE(dry.exit_code == 0);
  CHECK(dry.out.find("would send: POST " + server.server() + "/api/v1/namespaces/" + ns +
                     "/services/sax-http-lb:8888/proxy/unpublish") != std::string::npos);
  CHECK(sax.Direct("GET", "/listcell", {{"model", kModel}}).status == 200);  // still published
  CHECK(Exists(server.admin(), service_path));

  // The run's ledger holds every object it applied for the model: no BUCKET is needed again.
  auto options = run.Options({"serve", "down", "--model", "saxml-175b-test", "--yes", "--format", "json"});
  options.env["TPUTRAIN_BUCKET"] = std::nullopt;
  auto down = RunProcess(options, std::chrono::seconds(300));
  INFO(down.err);
  REQUIRE(down.exit_code == 0);
  CHECK(down.err.find("from its ledger") != std::string::npos);
  const auto taken = nlohmann::json::parse(down.out);
  CHECK(taken["unpublished"] == true);
  CHECK(taken["deleted"].size() == 5);
  for (const auto& row : taken["deleted"]) CHECK(row["deleted"] == true);
  CHECK_FALSE(Exists(server.admin(), service_path));
  CHECK_FALSE(Exists(server.admin(), jobset_path));
}

}  // namespace
}  // namespace tputrain::testing
