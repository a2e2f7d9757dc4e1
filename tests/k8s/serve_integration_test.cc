// `tputrain serve` against seed 002's real serving stack on CPU (MaxText's JetStream engine behind
// the upstream jetstream-http, in a network namespace serving the leader pod), reached through the
// real kube-apiserver's service proxy (no port-forward), on the real control plane: the
// LeaderWorkerSet controller makes the leader and its workers, the scheduler places them on kwok
// nodes, the endpoints controller lists the leader, the garbage collector finishes deletions.
// What the kubelet reports of failing containers: serve_states_integration_test.cc.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "k8s/apiserver_fixture.h"
#include "k8s/control_plane.h"
#include "k8s/gke_emulator.h"
#include "k8s/k8s_test_util.h"
#include "k8s/kwok_nodes.h"
#include "k8s/netns_jetstream.h"
#include "k8s/serve_run.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

constexpr const char* kServedLabel = "app";  // the leader's label, and the Service's selector
constexpr const char* kServedValue = "jetstream-pathways";

// The control plane of this binary: LeaderWorkerSet, pods that run until ended, and the pods
// labelled app=jetstream-pathways (the leader) served by JetStream where the test says; CPU nodes
// only, until a test adds a slice's pool.
ControlPlane& Plane() {
  ControlPlaneOptions options;
  options.pod_end = PodEnd::kRunForever;
  options.lws = true;
  options.answering_pods = {{kServedLabel, kServedValue}};
  auto& plane = ControlPlane::Shared(options);
  AddNodePool(plane.server().admin(), CpuPool("serve"));
  return plane;
}

// Deletes namespace `ns` and waits until its pods are gone: a LeaderWorkerSet left behind would
// take the TPU nodes a later test adds (the tests run in random order).
void DeleteNamespace(k8s::Client& admin, const std::string& ns) {
  (void)admin.Send("DELETE", "/api/v1/namespaces/" + ns);
  WaitFor(
      [&] {
        auto pods = admin.GetJson("/api/v1/namespaces/" + ns + "/pods", "");
        return pods && (*pods)["items"].empty();
      },
      std::chrono::seconds(60));
}

// A pod like the seed's leader, and the seed's jetstream-svc Service selecting it: the scheduler
// places it, kwok runs it at `ip` (the JetStream namespace), the endpoints controller lists it.
void RunJetStreamPod(ControlPlane& plane, const std::string& ns, const std::string& ip) {
  auto& admin = plane.server().admin();
  CreateObject(admin, "/api/v1/namespaces/" + ns + "/pods",
               {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", "jetstream-0"}, {"labels", {{kServedLabel, kServedValue}}}}},
                {"spec", {{"containers", {{{"name", "jetstream-http"}, {"image", "jetstream-http:v0.2.3"}}}}}}});
  CreateObject(admin, "/api/v1/namespaces/" + ns + "/services",
               {{"apiVersion", "v1"},
                {"kind", "Service"},
                {"metadata", {{"name", "jetstream-svc"}}},
                {"spec",
                 {{"selector", {{kServedLabel, kServedValue}}},
                  {"ports", {{{"name", "jetstream-http"}, {"port", 8000}, {"targetPort", 8000}}}}}}});
  plane.ServePodAt(ns, plane.WaitScheduledPod(ns, std::string(kServedLabel) + "=" + kServedValue), ip);
  WaitEndpoint(admin, ns, "jetstream-svc", ip);
}

ProcessResult Tputrain(const std::vector<std::string>& args) {
  ProcessOptions options;
  options.argv = {TputrainBinary()};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  return RunProcess(options, std::chrono::seconds(300));
}

TEST_CASE("serve generate asks the real JetStream server through the service proxy, whole and streamed",
          "[integration]") {
  auto& plane = Plane();
  auto& server = plane.server();
  NetnsJetStream jetstream;
  const std::string ns = server.NewNamespace("serve");
  RunJetStreamPod(plane, ns, jetstream.ip());
  const std::string kubeconfig = server.WriteKubeconfig("serve-" + ns, server.admin_token(), ns);
  const std::vector<std::string> target = {"--kubeconfig", kubeconfig};
  auto ask = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"serve", "generate", "--prompt", "What are the top 5 programming languages"};
    args.insert(args.end(), target.begin(), target.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return Tputrain(args);
  };

  auto whole = ask({"--max-tokens", "5", "--format", "json"});
  INFO(whole.err);
  REQUIRE(whole.exit_code == 0);
  const auto answer = nlohmann::json::parse(whole.out);
  const std::string text = answer["text"];
  CHECK_FALSE(text.empty());
  CHECK(answer["engine"] == "jetstream");
  CHECK(answer["service"] == "jetstream-svc");
  CHECK(answer["total_s"].get<double>() > 0);
  CHECK_FALSE(answer.contains("time_to_first_token_s"));

  // Greedy decoding of fixed weights: the streamed pieces make the same text, one per token
  // (the prefill's, then the generated ones), each written as it came.
  auto streamed = ask({"--max-tokens", "5", "--stream", "--format", "json"});
  INFO(streamed.err);
  REQUIRE(streamed.exit_code == 0);
  const auto stream_answer = nlohmann::json::parse(streamed.out);
  CHECK(stream_answer["text"] == text);
  CHECK(stream_answer["pieces"].get<int>() >= 5);
  CHECK(stream_answer["time_to_first_token_s"].get<double>() <= stream_answer["total_s"].get<double>());
  CHECK(stream_answer.contains("tokens_per_s"));

  auto plain = ask({"--max-tokens", "5", "--stream"});
  REQUIRE(plain.exit_code == 0);
  CHECK(plain.out == text + "\n");

  // The engine goes away: jetstream-http's 500 is one line in the server's words.
  jetstream.StopEngine();
  auto down = ask({"--max-tokens", "5"});
  CHECK(down.exit_code == 1);
  CHECK(down.out.empty());
  CHECK(down.err.rfind("ERROR: the engine behind jetstream-http is not serving", 0) == 0);
  CHECK(down.err.find("(HTTP 500)") != std::string::npos);
  CHECK(std::count(down.err.begin(), down.err.end(), '\n') == 1);
}

TEST_CASE("serve generate: a missing Service, one with no endpoints, and bad flags are one line each",
          "[integration]") {
  auto& server = Plane().server();
  const std::string ns = server.NewNamespace("serve-none");
  const std::string kubeconfig = server.WriteKubeconfig("serve-" + ns, server.admin_token(), ns);
  auto missing = Tputrain({"serve", "generate", "--prompt", "hi", "--kubeconfig", kubeconfig});
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.find("services \\\"jetstream-svc\\\" not found") == std::string::npos);
  CHECK(missing.err.find("jetstream-svc") != std::string::npos);
  CHECK(std::count(missing.err.begin(), missing.err.end(), '\n') == 1);

  // A Service whose selector matches no pod: the endpoints controller gives it an Endpoints with
  // no subsets, as it does while no pod is ready.
  CreateObject(server.admin(), "/api/v1/namespaces/" + ns + "/services",
               {{"apiVersion", "v1"},
                {"kind", "Service"},
                {"metadata", {{"name", "jetstream-svc"}}},
                {"spec", {{"selector", {{"app", "none"}}}, {"ports", {{{"port", 8000}, {"targetPort", 8000}}}}}}});
  REQUIRE(WaitFor([&] { return Exists(server.admin(), "/api/v1/namespaces/" + ns + "/endpoints/jetstream-svc"); },
                  std::chrono::seconds(60)));
  auto no_endpoints = Tputrain({"serve", "generate", "--prompt", "hi", "--kubeconfig", kubeconfig});
  INFO(no_endpoints.err);
  CHECK(no_endpoints.exit_code == 1);
  CHECK(no_endpoints.err.find("no endpoints available for service") != std::string::npos);
  CHECK(std::count(no_endpoints.err.begin(), no_endpoints.err.end(), '\n') == 1);

  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--max-tokens", "-1"}, {"--port", "70000"}, {"--service", "a/b"}, {"--engine", "tgi"}}) {
    auto bad = Tputrain({"serve", "generate", "--prompt", "hi", "--kubeconfig", kubeconfig, flag, value});
    INFO(flag << " " << value << ": " << bad.err);
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.rfind("ERROR: " + flag + ":", 0) == 0);
  }
}

TEST_CASE(
    "serve up applies seed 002's LeaderWorkerSet and waits through the health check's 500 until it serves; "
    "serve down removes it",
    "[integration]") {
  auto& plane = Plane();
  auto& server = plane.server();
  NetnsJetStream jetstream(/*wait_healthy=*/false);  // still loading when serve up starts asking
  const std::string ns = server.NewNamespace("serveup");
  char state_template[] = "/tmp/tputrain-serve-state-XXXXXX";
  REQUIRE(mkdtemp(state_template) != nullptr);
  ServeRun run{server.WriteKubeconfig("serveup-" + ns, server.admin_token(), ns), state_template};
  const std::string lws_path =
      "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns + "/leaderworkersets/jetstream-pathways";

  // A v6e 4x4 slice's pool, for the LWS controller's leader and workers. (Without one, serve up
  // stops at the scheduler's first refusal: the last test.)
  AddNodePool(server.admin(), V6eSlicePool("serve", "v6e-4x4"));

  // --dry-run: the server validates the applies, nothing is stored, nothing awaited.
  auto dry = RunProcess(run.Options({"serve", "up", "--model", "llama3.1-405b", "--dry-run", "--format", "json"}));
  INFO(dry.err);
  REQUIRE(dry.exit_code == 0);
  const auto plan = nlohmann::json::parse(dry.out);
  CHECK(plan["dry_run"] == true);
  CHECK(plan["applied"].size() == 2);  // the LeaderWorkerSet and its Service
  CHECK_FALSE(Exists(server.admin(), lws_path));

  ScopedProcess up(run.Options({"serve", "up", "--model", "llama3.1-405b", "--timeout", "6m"}));
  const bool applied = WaitFor([&] { return Exists(server.admin(), lws_path); }, std::chrono::seconds(60));
  INFO("serve up: " << up.ReadErr());
  REQUIRE(applied);
  // The leader runs where JetStream is, its workers where kwok puts them: the LeaderWorkerSet is
  // then Available, and only the health check holds serve up back.
  plane.ServePodAt(ns, plane.WaitScheduledPod(ns, std::string(kServedLabel) + "=" + kServedValue), jetstream.ip());
  REQUIRE(WaitFor([&] { return !up.running(); }, std::chrono::minutes(5)));
  INFO(up.ReadErr());
  REQUIRE(up.Stop() == 0);
  CHECK(up.ReadOut().find("Serving llama3.1-405b on v6e-16 (" + ns + "/jetstream-pathways)") != std::string::npos);
  CHECK(up.ReadErr().find("no node of a v6e-16 slice") == std::string::npos);  // there is one
  const std::string http_log = jetstream.HttpLog();
  INFO(http_log);
  CHECK(http_log.find("\"GET /healthcheck HTTP/1.1\" 500") != std::string::npos);  // loading
  CHECK(http_log.find("\"GET /healthcheck HTTP/1.1\" 200") != std::string::npos);  // then serving

  auto status = RunProcess(run.Options({"serve", "status", "--format", "json"}, false));
  INFO(status.err);
  REQUIRE(status.exit_code == 0);
  const auto rows = nlohmann::json::parse(status.out);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["kind"] == "lws");
  CHECK(rows[0]["name"] == "jetstream-pathways");
  CHECK(rows[0]["available"] == true);
  CHECK(rows[0]["pods_ready"] == 5);  // the leader and its four workers, all run by kwok
  CHECK(rows[0]["service"] == "jetstream-svc");
  CHECK(rows[0]["endpoint"] == server.server() + "/api/v1/namespaces/" + ns + "/services/jetstream-svc:8000/proxy/");

  // Through the API server, whole and streamed, the text a direct request to the pod gets.
  const std::string direct = jetstream.GenerateDirect("Hello", 3);
  auto asked = RunProcess(run.Options({"serve", "generate", "--prompt", "Hello", "--max-tokens", "3"}, false));
  INFO(asked.err);
  CHECK(asked.exit_code == 0);
  CHECK(asked.out == direct + "\n");
  auto streamed =
      RunProcess(run.Options({"serve", "generate", "--prompt", "Hello", "--max-tokens", "3", "--stream"}, false));
  CHECK(streamed.out == direct + "\n");

  // Foreground deletion: the garbage collector deletes the pods first.
  auto down = RunProcess(run.Options({"serve", "down", "--model", "llama3.1-405b", "--yes"}));
  INFO(down.err);
  CHECK(down.exit_code == 0);
  CHECK_FALSE(Exists(server.admin(), lws_path));
  CHECK_FALSE(Exists(server.admin(), "/api/v1/namespaces/" + ns + "/services/jetstream-svc"));
  RemoveNodePools(server.admin(), "serve", {"cpu-pool"});  // the next tests have no TPU node
  std::filesystem::remove_all(state_template);
}

TEST_CASE("serve down takes down what the run applied for the model, from its ledger, with no values again",
          "[integration]") {
  auto& server = Plane().server();
  const std::string ns = server.NewNamespace("servedown");
  char state_template[] = "/tmp/tputrain-serve-state-XXXXXX";
  REQUIRE(mkdtemp(state_template) != nullptr);
  ServeRun run{server.WriteKubeconfig("servedown-" + ns, server.admin_token(), ns), state_template};
  const std::string lws_path = "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns + "/leaderworkersets/own-lws";
  const std::string svc_path = "/api/v1/namespaces/" + ns + "/services/own-svc";
  // Values that change the objects' names: rendering the template again without them would
  // look for jetstream-pathways and jetstream-svc, and leave these running.
  auto up = RunProcess(run.Options({"serve", "up", "--model", "llama3.1-405b", "--set", "LWS_NAME=own-lws", "--set",
                                    "SERVICE_NAME=own-svc", "--no-wait"}));
  INFO(up.err);
  REQUIRE(up.exit_code == 0);
  REQUIRE(Exists(server.admin(), lws_path));
  REQUIRE(Exists(server.admin(), svc_path));

  auto down = RunProcess(run.Options({"serve", "down", "--model", "llama3.1-405b", "--yes", "--format", "json"}));
  INFO(down.err);
  REQUIRE(down.exit_code == 0);
  CHECK(down.err.find("from its ledger") != std::string::npos);
  const auto deleted = nlohmann::json::parse(down.out);
  REQUIRE(deleted.size() == 2);
  for (const auto& row : deleted) CHECK(row["deleted"] == true);
  CHECK_FALSE(Exists(server.admin(), lws_path));
  CHECK_FALSE(Exists(server.admin(), svc_path));

  // Nothing of the model is left in the ledger: a second down deletes nothing, says so, and is
  // no failure (a script may run it twice).
  auto again = RunProcess(run.Options({"serve", "down", "--model", "llama3.1-405b", "--yes", "--format", "json"}));
  INFO(again.err);
  CHECK(again.exit_code == 0);
  CHECK(again.err.find("is deleted already; nothing to delete") != std::string::npos);
  CHECK(nlohmann::json::parse(again.out).empty());
  std::filesystem::remove_all(state_template);
}

TEST_CASE(
    "serve down deletes nothing a run did not record, for an unknown run or one that applied nothing for the model",
    "[integration]") {
  auto& server = Plane().server();
  const std::string ns = server.NewNamespace("servedown-foreign");
  char state_template[] = "/tmp/tputrain-serve-state-XXXXXX";
  REQUIRE(mkdtemp(state_template) != nullptr);
  ServeRun run{server.WriteKubeconfig("servedown-" + ns, server.admin_token(), ns), state_template};
  // Another workload's LeaderWorkerSet and Service, of the names seed 002's template renders.
  const std::string lws_path =
      "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns + "/leaderworkersets/jetstream-pathways";
  const std::string svc_path = "/api/v1/namespaces/" + ns + "/services/jetstream-svc";
  CreateObject(server.admin(), "/api/v1/namespaces/" + ns + "/services",
               {{"apiVersion", "v1"},
                {"kind", "Service"},
                {"metadata", {{"name", "jetstream-svc"}}},
                {"spec", {{"ports", {{{"port", 8000}}}}, {"selector", {{"app", "theirs"}}}}}});
  CreateObject(server.admin(), "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns + "/leaderworkersets",
               nlohmann::json::parse(R"({"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
                 "metadata": {"name": "jetstream-pathways"},
                 "spec": {"replicas": 1, "leaderWorkerTemplate": {"size": 1, "workerTemplate": {"spec":
                   {"containers": [{"name": "c", "image": "theirs:v1"}]}}}}})"));

  // A fresh CI run id, or a typo in --run: no ledger at all. Refused as cleanup --run refuses it.
  auto options = run.Options({"serve", "down", "--model", "llama3.1-405b", "--yes"});
  for (auto& arg : options.argv) {
    if (arg == "r-serve") arg = "r-typo";
  }
  auto unknown = RunProcess(options);
  INFO(unknown.err);
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.rfind("ERROR: --run: no run 'r-typo' in " + std::string(state_template), 0) == 0);
  CHECK(unknown.err.find("nothing deleted") != std::string::npos);
  CHECK(Exists(server.admin(), lws_path));
  CHECK(Exists(server.admin(), svc_path));

  // A run that exists but applied nothing for the model: nothing deleted, and it fails saying so.
  WriteTextFile(std::string(state_template) + "/r-serve.json", R"({"version": 1, "run_id": "r-serve", "entries": []})");
  auto nothing = RunProcess(run.Options({"serve", "down", "--model", "llama3.1-405b", "--yes"}));
  INFO(nothing.err);
  CHECK(nothing.exit_code == 1);
  CHECK(nothing.err.find("run r-serve recorded nothing applied for it on this cluster") != std::string::npos);
  CHECK(nothing.err.find("nothing was deleted") != std::string::npos);
  CHECK(Exists(server.admin(), lws_path));
  CHECK(Exists(server.admin(), svc_path));

  // serve up does not take them over either: it refuses, naming them, and applies nothing.
  auto up = RunProcess(run.Options({"serve", "up", "--model", "llama3.1-405b", "--no-wait"}));
  INFO(up.err);
  CHECK(up.exit_code == 1);
  CHECK(up.err.find("already exist and run r-serve did not make them") != std::string::npos);
  CHECK(up.err.find("--force") != std::string::npos);
  auto lws = server.admin().GetJson(lws_path, "");
  REQUIRE(lws);
  CHECK((*lws)["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0]["image"] == "theirs:v1");
  std::filesystem::remove_all(state_template);
}

TEST_CASE(
    "serve up --create-nodepool adds the slices' pools to the GKE cluster (two when disaggregated); cleanup "
    "removes all",
    "[integration]") {
  auto& server = Plane().server();
  const std::string ns = server.NewNamespace("serve-pools");
  char home_template[] = "/tmp/tputrain-serve-pools-XXXXXX";
  REQUIRE(mkdtemp(home_template) != nullptr);
  const std::string home = home_template;
  GkeEmulator emulator(server, home);
  REQUIRE(emulator.ready());
  WriteTextFile(home + "/google-token", server.google_token() + "\n");
  std::filesystem::create_directories(home + "/gcloud");
  auto tputrain = [&](std::vector<std::string> args) {
    ProcessOptions options;
    options.argv = {TputrainBinary()};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.argv.insert(options.argv.end(), {"--run", "r-pools", "--state-dir", home + "/state"});
    options.env = {{"CLOUDSDK_API_ENDPOINT_OVERRIDES_CONTAINER", emulator.url() + "/"},
                   {"CLOUDSDK_AUTH_ACCESS_TOKEN_FILE", home + "/google-token"},
                   {"CLOUDSDK_CONFIG", home + "/gcloud"},
                   {"CLOUDSDK_CORE_PROJECT", "p"},
                   {"TPUTRAIN_BUCKET", "serve-ckpt"},
                   {"TPUTRAIN_RUN", std::nullopt},
                   {"KUBECONFIG", std::nullopt},
                   {"XDG_STATE_HOME", home + "/xdg"}};
    return RunProcess(options, std::chrono::seconds(300));
  };
  auto created = tputrain({"cluster", "create", "serving", "--location", "us-east5-b"});
  INFO(created.err);
  REQUIRE(created.exit_code == 0);

  auto up = tputrain({"serve", "up", "--model", "llama2-70b", "--disaggregated", "--cluster", "serving", "--location",
                      "us-east5-b", "-n", ns, "--create-nodepool", "--no-wait", "--format", "json"});
  INFO(up.err);
  REQUIRE(up.exit_code == 0);
  const auto answer = nlohmann::json::parse(up.out);
  CHECK(answer["template"] == "jetstream-pathways-disagg-70b");
  CHECK(answer["tpu_type"] == "v6e-8");
  auto pools = RunProcess(ProcessOptions{{"curl", "-s", emulator.url() + "/_emulator/state"}});
  const auto state = nlohmann::json::parse(pools.out);
  std::vector<std::string> names;
  // The emulator keeps a cluster's pools inside it, as GKE returns them.
  const nlohmann::json clusters = state.value("clusters", nlohmann::json::object());
  for (const auto& [key, cluster] : clusters.items()) {
    for (const auto& pool : cluster.value("nodePools", nlohmann::json::array())) {
      if (pool.value("name", "") != "default-pool") names.push_back(pool.value("name", ""));
    }
  }
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"jetstream-v6e-8-0", "jetstream-v6e-8-1"});

  // Serving objects go before the pools (the garbage collector finishing each), the pools with
  // their cluster.
  auto cleaned = tputrain({"cleanup", "--yes"});
  INFO(cleaned.err);
  CHECK(cleaned.exit_code == 0);
  CHECK_FALSE(Exists(server.admin(),
                     "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns + "/leaderworkersets/jetstream-pathways"));
  auto after =
      nlohmann::json::parse(RunProcess(ProcessOptions{{"curl", "-s", emulator.url() + "/_emulator/state"}}).out);
  CHECK(after.value("clusters", nlohmann::json::object()).empty());
  std::filesystem::remove_all(home);
}

TEST_CASE("serve up: a pod that no node can take ends the wait at once; a load that never ends times out",
          "[integration]") {
  auto& server = Plane().server();
  auto& admin = server.admin();
  char state_template[] = "/tmp/tputrain-serve-state-XXXXXX";
  REQUIRE(mkdtemp(state_template) != nullptr);

  // Nothing ever becomes ready (the pods are placed on a slice's pool, but the leader's container
  // never starts): the wait ends at --timeout, saying what stays.
  AddNodePool(admin, V6eSlicePool("serve", "v6e-4x4"));
  const std::string loading = server.NewNamespace("serveup-loading");
  ServeRun waiting{server.WriteKubeconfig("serveup-" + loading, server.admin_token(), loading), state_template};
  auto timed_out = RunProcess(waiting.Options({"serve", "up", "--model", "llama3.1-405b", "--timeout", "3s"}));
  INFO(timed_out.err);
  CHECK(timed_out.exit_code == 1);
  CHECK(timed_out.err.find("the LeaderWorkerSet stays") != std::string::npos);
  DeleteNamespace(admin, loading);
  RemoveNodePools(admin, "serve", {"cpu-pool"});

  const std::string ns = server.NewNamespace("serveup-sched");
  ServeRun run{server.WriteKubeconfig("serveup-" + ns, server.admin_token(), ns), state_template};
  const std::string lws_path =
      "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns + "/leaderworkersets/jetstream-pathways";
  ScopedProcess up(run.Options({"serve", "up", "--model", "llama3.1-405b"}));
  REQUIRE(WaitFor([&] { return Exists(admin, lws_path); }, std::chrono::seconds(60)));
  // The real scheduler finds no node for the leader (the cluster has CPU nodes only) and says so
  // in the pod's PodScheduled condition.
  REQUIRE(WaitFor([&] { return !up.running(); }, std::chrono::seconds(120)));
  INFO(up.ReadErr());
  CHECK(up.Stop() == 1);
  CHECK(up.ReadErr().find("ERROR: pod jetstream-pathways-0 cannot be scheduled: 0/3 nodes are available: 3 "
                          "node(s) didn't match Pod's node affinity/selector.") != std::string::npos);
  CHECK(up.ReadErr().find("; the cluster has no node of a v6e-16 slice") != std::string::npos);
  DeleteNamespace(admin, ns);
  std::filesystem::remove_all(state_template);
}

TEST_CASE("serve up without LeaderWorkerSet: one line, or --install-operators installs it first", "[integration]") {
  ApiServer bare;  // an API server of its own, without the CRDs the shared one carries
  // Its own controller manager, scheduler and kwok (no operator): they bring the LWS controller's
  // Deployment up once serve up has installed it.
  ControlPlane plane(bare, {});
  AddNodePool(bare.admin(), CpuPool("serve-op"));
  const std::string ns = bare.NewNamespace("serve-op");
  char state_template[] = "/tmp/tputrain-serve-state-XXXXXX";
  REQUIRE(mkdtemp(state_template) != nullptr);
  ServeRun run{bare.WriteKubeconfig("serve-op-" + ns, bare.admin_token(), ns), state_template};

  auto refused = RunProcess(run.Options({"serve", "up", "--model", "llama3.1-405b", "--no-wait"}));
  CHECK(refused.exit_code == 1);
  CHECK(refused.err.find("ERROR: LeaderWorkerSet is not installed on the cluster: tputrain operators install lws "
                         "(or serve up --install-operators)") != std::string::npos);

  const std::string manifest = std::string(state_template) + "/lws.yaml";
  WriteTextFile(manifest, LwsManifest("lws-system"));
  ScopedProcess up(run.Options(
      {"serve", "up", "--model", "llama3.1-405b", "--no-wait", "--install-operators", "--lws-manifest", manifest}));
  // The controller comes up: the Deployment controller, the scheduler and kwok make its
  // Deployment report an available replica.
  REQUIRE(WaitFor([&] { return !up.running(); }, std::chrono::seconds(120)));
  INFO(up.ReadErr());
  CHECK(up.Stop() == 0);
  CHECK(Exists(bare.admin(),
               "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns + "/leaderworkersets/jetstream-pathways"));
  std::filesystem::remove_all(state_template);
}

}  // namespace
}  // namespace tputrain::testing
