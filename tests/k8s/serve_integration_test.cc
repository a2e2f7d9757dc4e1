// `tputrain serve generate` against seed 002's real serving stack on CPU (MaxText's JetStream
// engine behind the upstream jetstream-http, in a network namespace playing the pod), reached
// through the real kube-apiserver's service proxy: no port-forward.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "k8s/apiserver_fixture.h"
#include "k8s/fake_kubelet_host.h"
#include "k8s/finalizer.h"
#include "k8s/gke_emulator.h"
#include "k8s/jetstream_leader.h"
#include "k8s/k8s_test_util.h"
#include "k8s/netns_jetstream.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

// What the LeaderWorkerSet's leader pod and the seed's jetstream-svc Service would be; the test
// plays the controllers (the pod's status, the Endpoints).
void PlayJetStreamPod(k8s::Client& admin, const std::string& ns, const std::string& ip) {
  const std::string pod = "jetstream-0";
  CreateObject(admin, "/api/v1/namespaces/" + ns + "/pods",
               {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", pod}, {"labels", {{"app", "jetstream-pathways"}}}}},
                {"spec", {{"containers", {{{"name", "jetstream-http"}, {"image", "jetstream-http:v0.2.3"}}}}}}});
  WriteStatus(admin, "/api/v1/namespaces/" + ns + "/pods/" + pod,
              {{"phase", "Running"},
               {"podIP", ip},
               {"podIPs", {{{"ip", ip}}}},
               {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}});
  CreateObject(admin, "/api/v1/namespaces/" + ns + "/services",
               {{"apiVersion", "v1"},
                {"kind", "Service"},
                {"metadata", {{"name", "jetstream-svc"}}},
                {"spec", {{"ports", {{{"name", "jetstream-http"}, {"port", 8000}, {"targetPort", 8000}}}}}}});
  PlayEndpoints(admin, ns, "jetstream-svc", {"jetstream-http", 8000}, ip, pod);
}

ProcessResult Tputrain(const std::vector<std::string>& args) {
  ProcessOptions options;
  options.argv = {TputrainBinary()};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  return RunProcess(options, std::chrono::seconds(300));
}

TEST_CASE("serve generate asks the real JetStream server through the service proxy, whole and streamed",
          "[integration]") {
  auto& server = ApiServer::Shared();
  NetnsJetStream jetstream;
  const std::string ns = server.NewNamespace("serve");
  PlayJetStreamPod(server.admin(), ns, jetstream.ip());
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
  auto& server = ApiServer::Shared();
  const std::string ns = server.NewNamespace("serve-none");
  const std::string kubeconfig = server.WriteKubeconfig("serve-" + ns, server.admin_token(), ns);
  auto missing = Tputrain({"serve", "generate", "--prompt", "hi", "--kubeconfig", kubeconfig});
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.find("services \\\"jetstream-svc\\\" not found") == std::string::npos);
  CHECK(missing.err.find("jetstream-svc") != std::string::npos);
  CHECK(std::count(missing.err.begin(), missing.err.end(), '\n') == 1);

  CreateObject(server.admin(), "/api/v1/namespaces/" + ns + "/services",
               {{"apiVersion", "v1"},
                {"kind", "Service"},
                {"metadata", {{"name", "jetstream-svc"}}},
                {"spec", {{"ports", {{{"port", 8000}, {"targetPort", 8000}}}}}}});
  // As the endpoints controller leaves it while no pod is ready: an Endpoints with no subsets.
  CreateObject(server.admin(), "/api/v1/namespaces/" + ns + "/endpoints",
               {{"apiVersion", "v1"}, {"kind", "Endpoints"}, {"metadata", {{"name", "jetstream-svc"}}}});
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

struct ServeRun {
  std::string kubeconfig;
  std::string state_dir;
  // `ledgered`: the command records in the run ledger (serve up, serve down).
  ProcessOptions Options(std::vector<std::string> args, bool ledgered = true) const {
    ProcessOptions options;
    options.argv = {TputrainBinary()};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.argv.insert(options.argv.end(), {"--kubeconfig", kubeconfig});
    if (ledgered) options.argv.insert(options.argv.end(), {"--state-dir", state_dir, "--run", "r-serve"});
    options.env = {{"TPUTRAIN_BUCKET", "serve-ckpt"}, {"TPUTRAIN_RUN", std::nullopt}};
    return options;
  }
};

bool Exists(k8s::Client& admin, const std::string& path) {
  auto response = admin.Send("GET", path, "", "");
  return response && response->status == 200;
}

TEST_CASE(
    "serve up applies seed 002's LeaderWorkerSet and waits through the health check's 500 until it serves; "
    "serve down removes it",
    "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  NetnsJetStream jetstream(/*wait_healthy=*/false);  // still loading when serve up starts asking
  const std::string ns = server.NewNamespace("serveup");
  char state_template[] = "/tmp/tputrain-serve-state-XXXXXX";
  REQUIRE(mkdtemp(state_template) != nullptr);
  ServeRun run{server.WriteKubeconfig("serveup-" + ns, server.admin_token(), ns), state_template};
  const std::string lws_path =
      "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns + "/leaderworkersets/jetstream-pathways";

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
  // The LeaderWorkerSet reports Available at once; only the health check holds serve up back.
  PlayLeader(server.admin(), ns, jetstream.ip(), nullptr);
  REQUIRE(WaitFor([&] { return !up.running(); }, std::chrono::minutes(5)));
  INFO(up.ReadErr());
  REQUIRE(up.Stop() == 0);
  CHECK(up.ReadOut().find("Serving llama3.1-405b on v6e-16 (" + ns + "/jetstream-pathways)") != std::string::npos);
  CHECK(up.ReadErr().find("no node of a v6e-16 slice") != std::string::npos);  // the test has no TPU nodes
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
  CHECK(rows[0]["pods_ready"] == 1);
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

  // The garbage collector, played: foreground deletion waits for it.
  Finalizer collector(server.admin(), {lws_path, "/api/v1/namespaces/" + ns + "/services/jetstream-svc"});
  auto down = RunProcess(run.Options({"serve", "down", "--model", "llama3.1-405b", "--yes"}));
  INFO(down.err);
  CHECK(down.exit_code == 0);
  CHECK_FALSE(Exists(server.admin(), lws_path));
  CHECK_FALSE(Exists(server.admin(), "/api/v1/namespaces/" + ns + "/services/jetstream-svc"));
  std::filesystem::remove_all(state_template);
}

TEST_CASE("serve down takes down what the run applied for the model, from its ledger, with no values again",
          "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
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

  Finalizer collector(server.admin(), {lws_path, svc_path});
  auto down = RunProcess(run.Options({"serve", "down", "--model", "llama3.1-405b", "--yes", "--format", "json"}));
  INFO(down.err);
  REQUIRE(down.exit_code == 0);
  CHECK(down.err.find("from its ledger") != std::string::npos);
  const auto deleted = nlohmann::json::parse(down.out);
  REQUIRE(deleted.size() == 2);
  for (const auto& row : deleted) CHECK(row["deleted"] == true);
  CHECK_FALSE(Exists(server.admin(), lws_path));
  CHECK_FALSE(Exists(server.admin(), svc_path));

  // Nothing of the model is left in the ledger: a second down finds nothing there, renders the
  // defaults, and finds none of those either.
  auto again = RunProcess(run.Options({"serve", "down", "--model", "llama3.1-405b", "--yes", "--format", "json"}));
  INFO(again.err);
  CHECK(again.exit_code == 0);
  CHECK(again.err.find("from its ledger") == std::string::npos);
  for (const auto& row : nlohmann::json::parse(again.out)) CHECK(row["deleted"] == false);
  std::filesystem::remove_all(state_template);
}

TEST_CASE("serve up stops at once when the leader cannot pull its image", "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  const std::string ns = server.NewNamespace("serveup-bad");
  char state_template[] = "/tmp/tputrain-serve-state-XXXXXX";
  REQUIRE(mkdtemp(state_template) != nullptr);
  ServeRun run{server.WriteKubeconfig("serveup-" + ns, server.admin_token(), ns), state_template};
  const std::string lws_path =
      "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns + "/leaderworkersets/jetstream-pathways";
  ScopedProcess up(run.Options({"serve", "up", "--model", "llama3.1-405b"}));
  const bool applied = WaitFor([&] { return Exists(server.admin(), lws_path); }, std::chrono::seconds(60));
  INFO("serve up: " << up.ReadErr());
  REQUIRE(applied);
  PlayLeader(server.admin(), ns, "10.0.0.1",
             {{"reason", "ImagePullBackOff"}, {"message", "Back-off pulling image \"jetstream-pathways:v0.2.0\""}});
  REQUIRE(WaitFor([&] { return !up.running(); }, std::chrono::seconds(120)));
  INFO(up.ReadErr());
  CHECK(up.Stop() == 1);
  CHECK(up.ReadErr().find("ERROR: pod jetstream-pathways-0 container jax-tpu: ImagePullBackOff: Back-off pulling "
                          "image") != std::string::npos);
  std::filesystem::remove_all(state_template);
}

// The seed's leader pod as the kubelet of `node` reports it: its four containers, in the
// kubelet's order (by name), with the statuses given.
void PlayLeaderOnNode(k8s::Client& admin, const std::string& ns, const std::string& node,
                      const std::map<std::string, nlohmann::json>& statuses) {
  const std::string pod = "jetstream-pathways-0";
  nlohmann::json containers = nlohmann::json::array();
  nlohmann::json container_statuses = nlohmann::json::array();
  for (const auto& [name, status] : statuses) {
    containers.push_back({{"name", name}, {"image", name + ":v0.2.0"}});
    nlohmann::json reported = {{"name", name}, {"image", name + ":v0.2.0"}, {"imageID", ""}, {"restartCount", 4}};
    reported.update(status);
    container_statuses.push_back(reported);
  }
  CreateObject(admin, "/api/v1/namespaces/" + ns + "/pods",
               {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata",
                 {{"name", pod},
                  {"labels",
                   {{"leaderworkerset.sigs.k8s.io/name", "jetstream-pathways"},
                    {"leaderworkerset.sigs.k8s.io/worker-index", "0"}}}}},
                {"spec", {{"nodeName", node}, {"containers", containers}}}});
  WriteStatus(admin, "/api/v1/namespaces/" + ns + "/pods/" + pod,
              {{"phase", "Running"}, {"podIP", "10.0.0.1"}, {"containerStatuses", container_statuses}});
}

nlohmann::json Running(bool ready) {
  return {{"ready", ready}, {"state", {{"running", {{"startedAt", "2026-11-24T06:00:00Z"}}}}}};
}

nlohmann::json CrashLooping(const std::string& container) {
  return {{"ready", false},
          {"state",
           {{"waiting",
             {{"reason", "CrashLoopBackOff"},
              {"message", "back-off 1m20s restarting failed container=" + container + " pod=jetstream-pathways-0"}}}}},
          {"lastState", {{"terminated", {{"exitCode", 1}, {"reason", "Error"}}}}}};
}

TEST_CASE(
    "serve up stops at once on a leader in CrashLoopBackOff or OOMKilled, with the container's last log lines "
    "read through the API server from the pod's kubelet",
    "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  // One kubelet and its Node for every section (ten lines per container: "<pod>/<container> line N").
  static FakeKubeletHost kubelet;
  static const std::string node = [&] {
    std::string name = "serve-node-" + std::to_string(getpid());
    kubelet.AddNode(server.admin(), name);
    return name;
  }();
  char state_template[] = "/tmp/tputrain-serve-state-XXXXXX";
  REQUIRE(mkdtemp(state_template) != nullptr);
  // The container's lines, the current instance's or (`previous`) the one before it.
  auto last_lines = [](bool previous) {
    std::string lines;
    for (int n = 1; n <= 10; ++n) {
      lines += std::string("jetstream-pathways-0/jax-tpu") + (previous ? " previous" : "") + " line " +
               std::to_string(n) + (n < 10 ? "\n" : "");
    }
    return lines;
  };

  // `statuses` played once serve up has applied; what it says on stderr once it has stopped.
  auto serve_up_against = [&](const std::string& ns, const std::map<std::string, nlohmann::json>& statuses) {
    ServeRun run{server.WriteKubeconfig("serveup-" + ns, server.admin_token(), ns), state_template};
    // The default wait for 405B is 45 minutes: stopping within the deadline below is stopping at once.
    ScopedProcess up(run.Options({"serve", "up", "--model", "llama3.1-405b"}));
    const std::string lws_path =
        "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns + "/leaderworkersets/jetstream-pathways";
    const bool applied = WaitFor([&] { return Exists(server.admin(), lws_path); }, std::chrono::seconds(60));
    INFO("serve up: " << up.ReadErr());
    REQUIRE(applied);
    PlayLeaderOnNode(server.admin(), ns, node, statuses);
    REQUIRE(WaitFor([&] { return !up.running(); }, std::chrono::seconds(120)));
    const int exit_code = up.Stop();
    const std::string err = up.ReadErr();
    INFO(err);
    CHECK(exit_code == 1);  // FailedPrecondition: the operation failed
    const auto error_at = err.find("ERROR: ");
    REQUIRE(error_at != std::string::npos);
    // Whatever the kubelet was asked for this pod: the API server passed the tail on.
    const std::string asked = kubelet.Requests();
    CHECK((asked.find("/containerLogs/" + ns + "/jetstream-pathways-0/jax-tpu?tailLines=20") != std::string::npos ||
           asked.find("/containerLogs/" + ns + "/jetstream-pathways-0/jax-tpu?previous=true&tailLines=20") !=
               std::string::npos));
    return err.substr(error_at);
  };

  SECTION("CrashLoopBackOff, with a sibling crash-looping too: the first is named, and its log is the one shown") {
    const std::string ns = server.NewNamespace("serveup-crash");
    const std::string said = serve_up_against(ns, {{"jax-tpu", CrashLooping("jax-tpu")},
                                                   {"jetstream-http", Running(true)},
                                                   {"pathways-proxy", Running(true)},
                                                   {"pathways-rm", CrashLooping("pathways-rm")}});
    CHECK(said ==
          "ERROR: pod jetstream-pathways-0 container jax-tpu: CrashLoopBackOff: back-off 1m20s "
          "restarting failed container=jax-tpu pod=jetstream-pathways-0; its last log lines:\n" +
              last_lines(false) + "\n");
  }

  SECTION("OOMKilled (the last termination's reason), the container running again") {
    const std::string ns = server.NewNamespace("serveup-oom");
    nlohmann::json oom = Running(false);
    oom["lastState"] = {{"terminated", {{"exitCode", 137}, {"reason", "OOMKilled"}}}};
    const std::string said = serve_up_against(ns, {{"jax-tpu", oom},
                                                   {"jetstream-http", Running(true)},
                                                   {"pathways-proxy", Running(true)},
                                                   {"pathways-rm", Running(true)}});
    CHECK(said ==
          "ERROR: pod jetstream-pathways-0 container jax-tpu: OOMKilled (the model does not fit the "
          "container's memory; a larger slice or int8 weights); its last log lines:\n" +
              last_lines(true) + "\n");
  }
  std::filesystem::remove_all(state_template);
}

TEST_CASE(
    "serve up --create-nodepool adds the slices' pools to the GKE cluster (two when disaggregated); cleanup "
    "removes all",
    "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
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

  // Serving objects go before the pools, the pools with their cluster.
  Finalizer collector(server.admin(),
                      {"/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns + "/leaderworkersets/jetstream-pathways",
                       "/api/v1/namespaces/" + ns + "/services/jetstream-svc"});
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
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  const std::string ns = server.NewNamespace("serveup-sched");
  char state_template[] = "/tmp/tputrain-serve-state-XXXXXX";
  REQUIRE(mkdtemp(state_template) != nullptr);
  ServeRun run{server.WriteKubeconfig("serveup-" + ns, server.admin_token(), ns), state_template};
  const std::string lws_path =
      "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns + "/leaderworkersets/jetstream-pathways";

  // Nothing ever becomes ready: the wait ends at --timeout, saying what stays.
  auto timed_out = RunProcess(run.Options({"serve", "up", "--model", "llama3.1-405b", "--timeout", "3s"}));
  CHECK(timed_out.exit_code == 1);
  CHECK(timed_out.err.find("the LeaderWorkerSet stays") != std::string::npos);

  ScopedProcess up(run.Options({"serve", "up", "--model", "llama3.1-405b"}));
  REQUIRE(WaitFor([&] { return Exists(server.admin(), lws_path); }, std::chrono::seconds(60)));
  // The scheduler, played: no node has google.com/tpu (the test cluster has no TPU nodes at all).
  const std::string pod = "jetstream-pathways-0";
  CreateObject(server.admin(), "/api/v1/namespaces/" + ns + "/pods",
               {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", pod}, {"labels", {{"leaderworkerset.sigs.k8s.io/name", "jetstream-pathways"}}}}},
                {"spec", {{"containers", {{{"name", "jax-tpu"}, {"image", "jetstream-pathways:v0.2.0"}}}}}}});
  WriteStatus(server.admin(), "/api/v1/namespaces/" + ns + "/pods/" + pod,
              {{"phase", "Pending"},
               {"conditions",
                {{{"type", "PodScheduled"},
                  {"status", "False"},
                  {"reason", "Unschedulable"},
                  {"message", "0/3 nodes are available: 3 Insufficient google.com/tpu."}}}}});
  REQUIRE(WaitFor([&] { return !up.running(); }, std::chrono::seconds(120)));
  INFO(up.ReadErr());
  CHECK(up.Stop() == 1);
  CHECK(up.ReadErr().find("ERROR: pod jetstream-pathways-0 cannot be scheduled: 0/3 nodes are available: 3 "
                          "Insufficient google.com/tpu.; the cluster has no node of a v6e-16 slice") !=
        std::string::npos);
  std::filesystem::remove_all(state_template);
}

TEST_CASE("serve up without LeaderWorkerSet: one line, or --install-operators installs it first", "[integration]") {
  ApiServer bare;  // an API server of its own, without the CRDs the shared one carries
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
  // The controller comes up (played): its Deployment reports an available replica.
  const std::string deployment = "/apis/apps/v1/namespaces/lws-system/deployments/lws-controller-manager";
  REQUIRE(WaitFor([&] { return Exists(bare.admin(), deployment); }, std::chrono::seconds(60)));
  WriteStatus(bare.admin(), deployment, {{"replicas", 1}, {"readyReplicas", 1}, {"availableReplicas", 1}});
  REQUIRE(WaitFor([&] { return !up.running(); }, std::chrono::seconds(120)));
  INFO(up.ReadErr());
  CHECK(up.Stop() == 0);
  CHECK(Exists(bare.admin(),
               "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns + "/leaderworkersets/jetstream-pathways"));
  std::filesystem::remove_all(state_template);
}

}  // namespace
}  // namespace tputrain::testing
