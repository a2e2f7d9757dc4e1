// Every script in examples/ run unchanged against `tputrain emulator start`, its environment
// pointed there by the emulator's export lines, as the CI pipelines in examples/ci run it: first
// DRY_RUN=1 (nothing may change), then PROVISION_ONLY=1 (the cloud resources made and deleted),
// then the whole path with the peers its steps need, provided as the integration tests provide
// them. The emulator's GKE clusters report the test kube-apiserver, beside which the real control
// plane runs (controller manager, scheduler, kwok as kubelets, KubeRay, LeaderWorkerSet, JobSet);
// the node pools the script makes become its Nodes, and the pods that must answer are served by
// real peers in network namespaces (example_cluster.h): a Ray head training real MaxText on CPU
// (seed 001), the real JetStream engine on CPU (seed 002), sax-http on the FAKE `sax` client (seed
// 003). Seed 004's TPU VMs boot as network namespaces running real Ray. Each run must exit 0 and
// leave the emulator holding no resource and the cluster's namespace holding no object.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "examples/example_cluster.h"
#include "k8s/apiserver_fixture.h"
#include "k8s/control_plane.h"
#include "k8s/netns_jetstream.h"
#include "k8s/netns_ray_head.h"
#include "k8s/netns_saxml.h"
#include "k8s/netns_vllm_sim.h"
#include "testing/scoped_process.h"
#include "tputrain/core/env.h"
#include "workflow/emulator_env.h"

namespace tputrain::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Settings = std::map<std::string, std::optional<std::string>>;
using workflow::testing::EmulatorEnv;

const fs::path kExamples = fs::path(TPUTRAIN_SOURCE_DIR) / "examples";

std::string PeerVenv(const std::string& name) {
  auto env = core::Env::FromProcess();
  return env.GetOr("TPUTRAIN_TEST_CACHE", env.Home() + "/.cache/tputrain-test") + "/" + name;
}

// What the emulator holds that a finished example must not have left: every resource that bills
// or grants. Operations and Cloud Build's build history stay, as Google keeps them, and so does
// the Cloud Build log bucket (Cloud Build's own, made by the first build); enabled APIs are not in
// the state.
std::vector<std::string> Leftovers(const json& state) {
  std::vector<std::string> left;
  for (const char* section : {"clusters", "tpuNodes", "queuedResources", "buckets", "serviceAccounts", "repositories",
                              "dockerImages", "firewalls", "uploads"}) {
    const json held = state.value(section, json::object());
    for (const auto& [key, value] : held.items()) {
      if (std::string(section) == "buckets" && key.find(".cloudbuild-logs.googleusercontent.com") != std::string::npos)
        continue;
      left.push_back(std::string(section) + " " + key);
    }
  }
  // Role bindings on what remains (the project, Cloud Build's bucket): none may name a member the
  // example added (its service accounts, its Kubernetes service accounts' principals).
  const json policies = state.value("policies", json::object());
  for (const auto& [key, policy] : policies.items()) {
    for (const auto& binding : policy.value("bindings", json::array())) {
      for (const auto& member : binding.value("members", json::array())) {
        const std::string text = member.get<std::string>();
        if (text.find("principal://") == 0 || text.find("serviceAccount:") == 0)
          left.push_back("policies " + key + " " + binding.value("role", "") + " " + text);
      }
    }
  }
  return left;
}

// One script's environment against one emulator: the emulator's export lines (as `eval` would
// set them) but its credentials line, a token file, its own state and gcloud directories, and
// tputrain on PATH.
struct ExampleEnv {
  EmulatorEnv& emulator;
  Settings settings;

  Settings Environment(const std::string& run) const {
    Settings env = emulator.Environment();
    std::istringstream lines(emulator.Out());
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("export ", 0) != 0) continue;
      const auto equals = line.find('=');
      const std::string name = line.substr(7, equals - 7);
      // The emulator's own credentials line names a token the emulator alone takes; the scripts
      // keep the test's token file, which the test API server takes as well.
      if (name == "CLOUDSDK_AUTH_ACCESS_TOKEN_FILE") continue;
      env[name] = line.substr(equals + 1);
    }
    const std::string binary = TputrainBinary();
    env["PATH"] = binary.substr(0, binary.rfind('/')) + ":" + core::Env::FromProcess().GetOr("PATH", "/usr/bin:/bin");
    env["CLOUDSDK_CORE_PROJECT"] = std::nullopt;
    env["RAY_ADDRESS"] = std::nullopt;
    env["KUBECONFIG"] = std::nullopt;
    env["RUN"] = run;
    env["PROJECT"] = "p";
    for (const auto& [name, value] : settings) env[name] = value;
    return env;
  }

  // `tputrain ARGS` with the same environment as the scripts (the stack files read it too).
  ProcessOptions Tputrain(const std::vector<std::string>& args, const std::string& run) const {
    ProcessOptions options;
    options.argv = {TputrainBinary()};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.env = Environment(run);
    return options;
  }

  ProcessOptions Script(const std::string& script, const std::string& run, const Settings& mode = {}) const {
    ProcessOptions options;
    options.argv = {"bash", (kExamples / script).string()};
    options.env = Environment(run);
    for (const auto& [name, value] : mode) options.env[name] = value;
    return options;
  }
};

void CheckLeftNothing(EmulatorEnv& emulator) {
  const auto left = Leftovers(emulator.State());
  INFO("left in the emulator:\n"
       << [&] {
            std::string text;
            for (const auto& item : left) text += "  " + item + "\n";
            return text;
          }());
  CHECK(left.empty());
}

std::string Tail(const std::string& text, size_t size = 6000) {
  return text.size() > size ? "..." + text.substr(text.size() - size) : text;
}

// The node pools of a TPU machine type (ct5lp-, ct5p-, ct6e-...) the emulator was asked to create.
std::size_t TpuPoolCreates(EmulatorEnv& emulator) {
  std::size_t creates = 0;
  for (const auto& request :
       emulator.Get("/_emulator/requests").value_or(json::object()).value("requests", json::array())) {
    const std::string path = request.value("path", "");
    if (request.value("method", "") != "POST" || path.size() < 10 || path.substr(path.size() - 10) != "/nodePools")
      continue;
    const json body = request.value("body", json::object());
    if (!body.is_object()) continue;
    const std::string machine =
        body.value("nodePool", json::object()).value("config", json::object()).value("machineType", "");
    if (machine.rfind("ct", 0) == 0) ++creates;
  }
  return creates;
}

// The CI rehearsal: DRY_RUN=1 changes nothing, PROVISION_ONLY=1 makes and deletes the resources;
// a serving script's rehearsal makes (and deletes) the TPU slice pools serve up would make, so the
// bodies that cost money are sent.
void Rehearse(const ExampleEnv& example, const std::string& script) {
  auto dry = RunProcess(example.Script(script, "dry", {{"DRY_RUN", "1"}}), std::chrono::minutes(5));
  INFO("DRY_RUN=1 " << script << "\n" << dry.out << Tail(dry.err));
  REQUIRE(dry.exit_code == 0);
  CHECK(dry.out.find("POST http") != std::string::npos);  // the requests, printed
  CHECK(example.emulator.State().value("clusters", json::object()).empty());
  CHECK_FALSE(fs::exists(example.emulator.dir() / "xdg" / "tputrain" / "dry.json"));  // nothing recorded
  CheckLeftNothing(example.emulator);

  const std::size_t tpu_pools_before = TpuPoolCreates(example.emulator);
  auto rehearsal = RunProcess(example.Script(script, "rehearsal", {{"PROVISION_ONLY", "1"}}), std::chrono::minutes(10));
  INFO("PROVISION_ONLY=1 " << script << "\n" << Tail(rehearsal.out) << Tail(rehearsal.err));
  REQUIRE(rehearsal.exit_code == 0);
  CHECK(rehearsal.out.find("run rehearsal: cleaned up") != std::string::npos);
  const bool serving = script.rfind("002-", 0) == 0 || script.rfind("003-", 0) == 0 || script.rfind("005-", 0) == 0;
  if (serving) CHECK(TpuPoolCreates(example.emulator) > tpu_pools_before);
  CheckLeftNothing(example.emulator);
}

// The stack file beside a script, as the CI pipelines rehearse it: `up --dry-run` changes nothing,
// `up --skip apply,workload` makes the cloud side (a second one only reads), `down` deletes it.
void RehearseStack(const ExampleEnv& example, const std::string& stack) {
  const std::string file = (kExamples / stack).string();
  auto dry = RunProcess(example.Tputrain({"up", "-f", file, "--dry-run"}, "stack-dry"), std::chrono::minutes(5));
  INFO("up --dry-run " << stack << "\n" << dry.out << Tail(dry.err));
  REQUIRE(dry.exit_code == 0);
  CHECK(dry.out.find("POST http") != std::string::npos);
  CHECK(example.emulator.State().value("clusters", json::object()).empty());
  CHECK_FALSE(fs::exists(example.emulator.dir() / "xdg" / "tputrain" / "stack-dry.json"));
  CheckLeftNothing(example.emulator);

  for (int pass = 0; pass < 2; ++pass) {
    auto up = RunProcess(example.Tputrain({"up", "-f", file, "--skip", "apply,workload"}, "stack-rehearsal"),
                         std::chrono::minutes(10));
    INFO("up " << stack << " (pass " << pass << ")\n" << Tail(up.out) << Tail(up.err));
    REQUIRE(up.exit_code == 0);
    if (pass == 1) CHECK(up.out.find(" done ") == std::string::npos);  // all adopted: nothing made again
  }
  auto down = RunProcess(example.Tputrain({"down", "-f", file, "--yes"}, "stack-rehearsal"), std::chrono::minutes(10));
  INFO("down " << stack << "\n" << Tail(down.out) << Tail(down.err));
  REQUIRE(down.exit_code == 0);
  CHECK(down.out.find("run stack-rehearsal: down") != std::string::npos);
  CheckLeftNothing(example.emulator);
}

// The stack whole: up (the workload too), status, down.
ProcessResult UpStatusDown(const ExampleEnv& example, const std::string& stack, const std::string& run,
                           std::string& status_out) {
  const std::string file = (kExamples / stack).string();
  auto up = RunProcess(example.Tputrain({"up", "-f", file}, run), std::chrono::minutes(12));
  if (up.exit_code != 0) return up;
  auto status = RunProcess(example.Tputrain({"status", "-f", file}, run), std::chrono::minutes(2));
  status_out = status.out + status.err;
  auto down = RunProcess(example.Tputrain({"down", "-f", file, "--yes"}, run), std::chrono::minutes(10));
  up.out += down.out;
  up.err += down.err;
  up.exit_code = status.exit_code != 0 ? status.exit_code : down.exit_code;
  return up;
}

// The whole path (an ExampleCluster, if any, gives the Kubernetes side its Nodes and peers).
ProcessResult RunWhole(const ExampleEnv& example, const std::string& script, const std::string& run) {
  return RunProcess(example.Script(script, run), std::chrono::minutes(12));
}

bool SeenWith(const ExampleCluster& cluster, const std::string& prefix) {
  const auto seen = cluster.Seen();
  return std::any_of(seen.begin(), seen.end(), [&](const std::string& item) { return item.rfind(prefix, 0) == 0; });
}

// The namespace after the script's cleanup: nothing of the run, its controllers' pods included.
void CheckNamespaceEmpty(ExampleCluster& cluster) {
  std::vector<std::string> remaining;
  // The garbage collector and kwok finish deleting what cleanup deleted in the foreground.
  WaitFor([&] { return (remaining = cluster.Remaining()).empty(); }, std::chrono::seconds(30));
  std::string text;
  for (const auto& item : remaining) text += "  " + item + "\n";
  INFO("left in the namespace:\n" << text);
  CHECK(remaining.empty());
}

// The real control plane beside the test API server, with the operators and the answering pods
// a scenario needs (one scenario per process: see CMakeLists.txt), and the emulator whose clusters
// report that API server; the scripts reach it with --cluster and a Google token the API server
// takes (what gke-gcloud-auth-plugin would hand kubectl).
struct GkeWorld {
  ControlPlane& plane;
  ApiServer& server;
  fs::path ca_file;
  std::unique_ptr<EmulatorEnv> emulator;

  explicit GkeWorld(const ControlPlaneOptions& options) : plane(ControlPlane::Shared(options)), server(plane.server()) {
    ca_file = fs::path(server.dir()) / "examples-cluster-ca.pem";
    WriteTextFile(ca_file.string(), server.ca_pem());
    emulator = std::make_unique<EmulatorEnv>(
        std::vector<std::string>{"--cluster-endpoint", server.server(), "--cluster-ca-file", ca_file.string()},
        "100ms");
    REQUIRE(emulator->ready());
    std::ofstream(emulator->dir() / "token") << server.google_token() << "\n";
  }

  ExampleCluster Cluster(const std::string& ns, std::vector<ServedPod> served) {
    return ExampleCluster(plane, emulator->url(), ns, std::move(served));
  }
};

TEST_CASE("every script in examples/ has a scenario in this test", "[integration][coverage]") {
  std::vector<std::string> scripts;
  for (const auto& entry : fs::directory_iterator(kExamples)) {
    if (entry.path().extension() == ".sh") scripts.push_back(entry.path().filename().string());
  }
  std::sort(scripts.begin(), scripts.end());
  // A new example gets its scenario below (and its peers) before it lands: examples nobody runs rot.
  CHECK(scripts == std::vector<std::string>{"001-train-llama3-8b-gke.sh", "002-serve-jetstream.sh",
                                            "003-serve-saxml-175b.sh", "004-ray-on-tpu-vms.sh", "005-serve-vllm.sh"});
  // Each has its stack file beside it, with a scenario below too.
  for (const char* stack : {"001-train-llama3-8b-gke.yaml", "002-serve-jetstream.yaml", "003-serve-saxml-175b.yaml",
                            "004-ray-on-tpu-vms.yaml", "005-serve-vllm.yaml"}) {
    CHECK(fs::exists(kExamples / stack));
  }
}

TEST_CASE("example 001: seed 001 from nothing to nothing, MaxText trained through KubeRay on the cluster",
          "[integration][001]") {
  const std::string script = "001-train-llama3-8b-gke.sh";
  const std::string venv = PeerVenv("maxtext");
  if (!fs::exists(venv + "/bin/ray")) FAIL("no MaxText peer at " + venv + ": run scripts/peers/maxtext.sh");
  ControlPlaneOptions options;
  options.pod_end = PodEnd::kRunForever;
  options.kuberay = true;
  options.answering_pods = {{"ray.io/node-type", "head"}};
  GkeWorld world(options);
  const std::string ns = world.server.NewNamespace("example-001");
  // The CPU preset: real MaxText on the Ray head's CPU, through the same submit as llama3-8b.
  ExampleEnv example{*world.emulator, {{"MODEL", "maxtext-cpu-smoke"}, {"NAMESPACE", ns}}};
  Rehearse(example, script);

  NetnsRayHead head(venv);
  // KubeRay makes the head pod; the scheduler binds it to a Node of the script's pools; the Ray
  // head in its network namespace answers for it.
  auto cluster = world.Cluster(ns, {{"ray.io/cluster=maxtext-cpu-smoke,ray.io/node-type=head", head.ip()}});
  auto whole = RunWhole(example, script, "whole-001");
  INFO(Tail(whole.out) << Tail(whole.err) << "\ncluster:\n" << cluster.SeenText());
  REQUIRE(whole.exit_code == 0);
  CHECK(whole.out.find("job SUCCEEDED") != std::string::npos);
  CHECK(SeenWith(cluster, "nodes ray-tpu/"));
  CHECK(SeenWith(cluster, "served maxtext-cpu-smoke-head"));
  CHECK(whole.out.find("run whole-001: cleaned up") != std::string::npos);
  CheckNamespaceEmpty(cluster);
  CheckLeftNothing(*world.emulator);
  std::error_code ignored;
  fs::remove_all("/tmp/tputrain-runs/whole-001", ignored);  // MaxText's output on the head's host

  // The stack file beside the script: the same path from one `up`, then status and down.
  const std::string stack = "001-train-llama3-8b-gke.yaml";
  RehearseStack(example, stack);
  std::string status;
  auto stacked = UpStatusDown(example, stack, "stack-001", status);
  INFO(Tail(stacked.out) << Tail(stacked.err) << "\nstatus:\n" << status << "\ncluster:\n" << cluster.SeenText());
  REQUIRE(stacked.exit_code == 0);
  CHECK(stacked.out.find("job ") != std::string::npos);
  CHECK(stacked.out.find("SUCCEEDED") != std::string::npos);
  CHECK(status.find("workload") != std::string::npos);
  CHECK(stacked.out.find("run stack-001: down") != std::string::npos);
  CheckNamespaceEmpty(cluster);
  CheckLeftNothing(*world.emulator);
  fs::remove_all("/tmp/tputrain-runs/stack-001", ignored);
}

// One JetStream for both of seed 002's paths: it takes 30-50 s and 1.6 GB to start.
NetnsJetStream& SharedJetStream() {
  static NetnsJetStream jetstream(/*wait_healthy=*/false);  // loads while the scripts provision
  return jetstream;
}

TEST_CASE("example 002: seed 002's 405B and its disaggregated 70B, converted, served by JetStream, asked",
          "[integration][002]") {
  const std::string script = "002-serve-jetstream.sh";
  ControlPlaneOptions options;
  options.pod_end = PodEnd::kJobPodsSucceed;  // the converter's pod (its log is serve_convert's test)
  options.lws = true;
  // The LeaderWorkerSet's leader: the one pod with the template's app label, which jetstream-svc selects.
  options.answering_pods = {{"app", "jetstream-pathways"}};
  GkeWorld world(options);
  auto& jetstream = SharedJetStream();
  const std::string leader = "app=jetstream-pathways";

  SECTION("llama3.1-405b: the converter Job, the LeaderWorkerSet, a streamed answer") {
    const std::string ns = world.server.NewNamespace("example-002");
    ExampleEnv example{
        *world.emulator,
        {{"NAMESPACE", ns}, {"META_URL", "https://llama3-1.llamameta.net/*?Policy=example-test"}, {"MAX_TOKENS", "8"}}};
    Rehearse(example, script);
    auto cluster = world.Cluster(ns, {{leader, jetstream.ip()}});
    auto whole = RunWhole(example, script, "whole-002");
    INFO(Tail(whole.out) << Tail(whole.err) << "\ncluster:\n"
                         << cluster.SeenText() << "\njetstream-http:\n"
                         << Tail(jetstream.HttpLog(), 2000) << "\nengine:\n"
                         << Tail(jetstream.EngineLog(), 2000));
    REQUIRE(whole.exit_code == 0);
    CHECK(whole.out.find("checkpoint: gs://p-jetstream/maxtext/llama-3.1-405b/int8") != std::string::npos);
    CHECK(SeenWith(cluster, "nodes jetstream/m1-pool"));
    CHECK(SeenWith(cluster, "served jetstream-pathways-0 at"));
    CHECK(whole.out.find("run whole-002: cleaned up") != std::string::npos);
    CheckNamespaceEmpty(cluster);
    CheckLeftNothing(*world.emulator);
  }

  // A section of its own: the script's path above and the stack's each start from nothing.
  SECTION("llama3.1-405b from its stack file: the cluster, bucket and binding, the server up from one `up`") {
    const std::string ns = world.server.NewNamespace("example-002s");
    ExampleEnv example{*world.emulator, {{"NAMESPACE", ns}}};
    auto cluster = world.Cluster(ns, {{leader, jetstream.ip()}});
    const std::string stack = "002-serve-jetstream.yaml";
    RehearseStack(example, stack);
    std::string status;
    auto stacked = UpStatusDown(example, stack, "stack-002", status);
    INFO(Tail(stacked.out) << Tail(stacked.err) << "\nstatus:\n"
                           << status << "\ncluster:\n"
                           << cluster.SeenText() << "\njetstream-http:\n"
                           << Tail(jetstream.HttpLog(), 2000));
    REQUIRE(stacked.exit_code == 0);
    CHECK(stacked.out.find("serving llama3.1-405b on v6e-16") != std::string::npos);
    CHECK(SeenWith(cluster, "served jetstream-pathways-0 at"));
    CHECK(status.find("workload") != std::string::npos);
    CHECK(stacked.out.find("run stack-002: down") != std::string::npos);
    CheckNamespaceEmpty(cluster);
    CheckLeftNothing(*world.emulator);
  }

  SECTION("llama2-70b --disaggregated, from a checkpoint converted before") {
    const std::string ns = world.server.NewNamespace("example-002d");
    ExampleEnv example{*world.emulator,
                       {{"NAMESPACE", ns},
                        {"MODEL", "llama2-70b"},
                        {"DISAGGREGATED", "1"},
                        {"CHECKPOINT", "gs://p-jetstream/maxtext/llama-2-70b/int8"},
                        {"MAX_TOKENS", "8"}}};
    auto cluster = world.Cluster(ns, {{leader, jetstream.ip()}});
    auto whole = RunWhole(example, script, "whole-002d");
    INFO(Tail(whole.out) << Tail(whole.err) << "\ncluster:\n" << cluster.SeenText());
    REQUIRE(whole.exit_code == 0);
    CHECK_FALSE(SeenWith(cluster, "nodes jetstream/m1-pool"));  // no conversion
    CHECK(SeenWith(cluster, "served jetstream-pathways-0 at"));
    CHECK(whole.out.find("run whole-002d: cleaned up") != std::string::npos);
    CheckNamespaceEmpty(cluster);
    CheckLeftNothing(*world.emulator);
  }
}

TEST_CASE("example 003: seed 003's Saxml 175B test model served, asked, unpublished, all deleted",
          "[integration][003]") {
  const std::string script = "003-serve-saxml-175b.sh";
  ControlPlaneOptions options;
  options.pod_end = PodEnd::kRunForever;  // the model servers serve until deleted
  options.jobset = true;
  options.answering_pods = {{"app", "sax-http"}};
  GkeWorld world(options);
  NetnsSaxHttp sax(SaxHttpVariant::kUpstreamFastApi, /*load_seconds=*/2);

  SECTION("the script: provisioned, served, asked, unpublished, cleaned up") {
    const std::string ns = world.server.NewNamespace("example-003");
    ExampleEnv example{*world.emulator, {{"NAMESPACE", ns}}};
    Rehearse(example, script);
    auto cluster = world.Cluster(ns, {{"app=sax-http", sax.ip()}});
    auto whole = RunWhole(example, script, "whole-003");
    INFO(Tail(whole.out) << Tail(whole.err) << "\ncluster:\n"
                         << cluster.SeenText() << "\nsax-http:\n"
                         << Tail(sax.Log()));
    REQUIRE(whole.exit_code == 0);
    CHECK(SeenWith(cluster, "served sax-http-"));
    const std::string log = sax.Log();
    CHECK(log.find("POST /publish") != std::string::npos);
    CHECK(log.find("POST /generate") != std::string::npos);
    CHECK(log.find("POST /unpublish") != std::string::npos);
    CHECK(whole.out.find("run whole-003: cleaned up") != std::string::npos);
    CheckNamespaceEmpty(cluster);
    CheckLeftNothing(*world.emulator);
  }

  // A section of its own: the stack's path starts from nothing too.
  SECTION("from its stack file: cluster, bucket, both accounts, the model published from one `up`") {
    const std::string ns = world.server.NewNamespace("example-003s");
    ExampleEnv example{*world.emulator, {{"NAMESPACE", ns}}};
    auto cluster = world.Cluster(ns, {{"app=sax-http", sax.ip()}});
    const std::string stack = "003-serve-saxml-175b.yaml";
    RehearseStack(example, stack);
    std::string status;
    auto stacked = UpStatusDown(example, stack, "stack-003", status);
    const std::string log = sax.Log();  // this section's sax-http: Catch runs each section anew
    INFO(Tail(stacked.out) << Tail(stacked.err) << "\nstatus:\n"
                           << status << "\ncluster:\n"
                           << cluster.SeenText() << "\nsax-http:\n"
                           << Tail(log));
    REQUIRE(stacked.exit_code == 0);
    CHECK(stacked.out.find("serving /sax/test/spmd on v5litepod-32") != std::string::npos);
    CHECK(SeenWith(cluster, "served sax-http-"));
    CHECK(log.find("POST /publish") != std::string::npos);
    CHECK(log.find("POST /unpublish") != std::string::npos);  // down takes the model out of the cell
    CHECK(status.find("workload") != std::string::npos);
    CHECK(stacked.out.find("run stack-003: down") != std::string::npos);
    CheckNamespaceEmpty(cluster);
    CheckLeftNothing(*world.emulator);
  }
}

TEST_CASE("example 005: vLLM on a v6e-1 host served, asked whole and streamed, taken down, all deleted",
          "[integration][005]") {
  const std::string script = "005-serve-vllm.sh";
  ControlPlaneOptions options;
  options.pod_end = PodEnd::kRunForever;  // the server serves until deleted
  options.answering_pods = {{"app", "vllm-tpu"}};
  GkeWorld world(options);
  world.server.EnsureCrds();  // no operator runs here; the namespace check lists their kinds too
  const std::string ns = world.server.NewNamespace("example-005");
  const std::string token_file = (world.emulator->dir() / "hf-token").string();
  std::ofstream(token_file) << "hf_exampleTokenNotPrinted42\n";
  ExampleEnv example{*world.emulator, {{"NAMESPACE", ns}, {"HF_TOKEN_FILE", token_file}}};
  Rehearse(example, script);

  NetnsVllmSim sim;  // a SIMULATOR of vLLM's API (llm-d-inference-sim) as the pod
  auto cluster = world.Cluster(ns, {{"app=vllm-tpu", sim.ip()}});
  auto whole = RunWhole(example, script, "whole-005");
  INFO(Tail(whole.out) << Tail(whole.err) << "\ncluster:\n"
                       << cluster.SeenText() << "\nsimulator:\n"
                       << Tail(sim.Log()));
  REQUIRE(whole.exit_code == 0);
  CHECK(SeenWith(cluster, "served vllm-tpu-"));
  CHECK(whole.out.find("Serving meta-llama/Meta-Llama-3-8B-Instruct on v6e-1") != std::string::npos);
  const auto direct = sim.PostDirect(
      "/v1/completions",
      {{"model", NetnsVllmSim::kModel}, {"prompt", "What are the top 5 programming languages"}, {"max_tokens", 64}});
  CHECK(whole.out.find(direct["choices"][0]["text"].get<std::string>() + "\n") != std::string::npos);
  CHECK(whole.out.find("\"time_to_first_token_s\"") != std::string::npos);
  CHECK((whole.out + whole.err).find("hf_exampleTokenNotPrinted42") == std::string::npos);
  CHECK(whole.out.find("run whole-005: cleaned up") != std::string::npos);
  CheckNamespaceEmpty(cluster);
  CheckLeftNothing(*world.emulator);

  // The stack file: the cluster and the server (its pool, the Secret) from one `up`.
  const std::string stack = "005-serve-vllm.yaml";
  RehearseStack(example, stack);
  std::string status;
  auto stacked = UpStatusDown(example, stack, "stack-005", status);
  INFO(Tail(stacked.out) << Tail(stacked.err) << "\nstatus:\n" << status << "\ncluster:\n" << cluster.SeenText());
  REQUIRE(stacked.exit_code == 0);
  CHECK(stacked.out.find("serving meta-llama/Meta-Llama-3-8B-Instruct on v6e-1") != std::string::npos);
  CHECK((stacked.out + stacked.err + status).find("hf_exampleTokenNotPrinted42") == std::string::npos);
  CHECK(stacked.out.find("run stack-005: down") != std::string::npos);
  CheckNamespaceEmpty(cluster);
  CheckLeftNothing(*world.emulator);
}

TEST_CASE("example 004: seed 004's TPU VMs with Ray at boot, jobs, exec, MaxText, multislice, all deleted",
          "[integration][004]") {
  const std::string script = "004-ray-on-tpu-vms.sh";
  // The hosts run the MaxText peer's venv (Ray 2.60, JAX on CPU, MaxText 0.2.5): no setup, no pip.
  const std::string venv = PeerVenv("maxtext");
  if (!fs::exists(venv + "/bin/ray")) FAIL("no MaxText peer at " + venv + ": run scripts/peers/maxtext.sh");
  EmulatorEnv emulator({"--tpu-hosts", "netns", "--host-path", venv}, "100ms");
  REQUIRE(emulator.ready());
  // v5p-16: two hosts a slice, small Ray nodes (two share this machine; notes/tpu-vm-ray.md §4.5).
  ExampleEnv example{emulator,
                     {{"ZONE", "us-east5-a"},
                      {"ACCELERATOR_TYPE", "v5p-16"},
                      {"HOST_SETUP", "none"},
                      {"MAXTEXT_MODEL", "maxtext-cpu-smoke"},
                      {"RAY_START_ARGS", "--num-cpus=1 --object-store-memory=100000000"}}};
  Rehearse(example, script);

  auto whole = RunWhole(example, script, "whole-004");
  INFO(Tail(whole.out) << Tail(whole.err));
  REQUIRE(whole.exit_code == 0);
  CHECK(whole.out.find("devices seen by each host: [1, 1]") != std::string::npos);  // JAX on CPU: a device a host
  CHECK(whole.out.find("[worker 1]") != std::string::npos);
  CHECK(whole.out.find("MaxText: SUCCEEDED") != std::string::npos);
  CHECK(whole.out.find("4 hosts ready across 2 slices") != std::string::npos);
  CHECK(whole.out.find("run whole-004: cleaned up") != std::string::npos);
  CheckLeftNothing(emulator);
  auto hosts = emulator.Get("/_emulator/tpu-hosts");
  REQUIRE(hosts);
  CHECK(hosts->dump().find("/nodes/") == std::string::npos);
  std::error_code ignored;
  fs::remove_all("/tmp/tputrain-runs/whole-004", ignored);

  // The stack file beside the script: the slice with Ray at boot and the JAX job from one `up`; a
  // second `up` only reads; status; down deletes the slice and the IAP rule.
  const fs::path setup = emulator.dir() / "host-setup.sh";
  std::ofstream(setup) << "#!/bin/bash\n# the hosts run the MaxText peer's venv: nothing to install\ntrue\n";
  ExampleEnv stacked{emulator, example.settings};
  stacked.settings["HOST_SETUP"] = setup.string();
  stacked.settings["TPU_NAME"] = "ray-stack";
  const std::string file = (kExamples / "004-ray-on-tpu-vms.yaml").string();
  auto dry = RunProcess(stacked.Tputrain({"up", "-f", file, "--dry-run"}, "stack-004"), std::chrono::minutes(2));
  INFO("up --dry-run\n" << dry.out << Tail(dry.err));
  REQUIRE(dry.exit_code == 0);
  CHECK(dry.out.find("tpu-vm/ray-stack") != std::string::npos);
  CHECK(dry.out.find("to the Ray of TPU VM ray-stack") != std::string::npos);
  CHECK(dry.out.find("\"tputrain-ray-token\":\"REDACTED\"") != std::string::npos);  // the token the hosts boot with
  CHECK(emulator.State().value("tpuNodes", json::object()).empty());
  auto up = RunProcess(stacked.Tputrain({"up", "-f", file}, "stack-004"), std::chrono::minutes(12));
  INFO("up\n" << Tail(up.out) << Tail(up.err));
  REQUIRE(up.exit_code == 0);
  CHECK(up.out.find("SUCCEEDED") != std::string::npos);
  auto again = RunProcess(stacked.Tputrain({"up", "-f", file}, "stack-004"), std::chrono::minutes(5));
  INFO("up again\n" << Tail(again.out) << Tail(again.err));
  REQUIRE(again.exit_code == 0);
  // The slice adopted, the job done before (the lines a step's changes of state print, piped).
  const std::string said = again.out + again.err;
  CHECK(said.find("tpu-vm/ray-stack: adopted") != std::string::npos);
  CHECK(said.find("workload: adopted 0s (done before: job raysubmit_") != std::string::npos);
  CHECK(said.find(": done ") == std::string::npos);
  auto status = RunProcess(stacked.Tputrain({"status", "-f", file}, "stack-004"), std::chrono::minutes(2));
  INFO("status\n" << status.out << status.err);
  CHECK(status.exit_code == 0);
  CHECK(status.out.find("tpu-vm/ray-stack") != std::string::npos);

  // A job Ctrl-C interrupts keeps running, recorded in the run; `up` again follows that job, and
  // starts no other. (The same stack, a longer job: the slice is adopted as it is.)
  const fs::path longer = emulator.dir() / "longer-job.yaml";
  std::ofstream(longer)
      << "name: stack-004\nproject: p\nlocation: us-east5-a\ntpu-vms:\n"
         "  - name: ray-stack\n    accelerator-type: v5p-16\n    ray: true\n    setup: "
      << setup.string()
      << "\n    ray-start-args: --num-cpus=1 --object-store-memory=100000000\n"
         "    iap-firewall: create\nworkload:\n  job:\n    tpu-vm: ray-stack\n"
         "    command: [python, -c, \"import time; print('sleeping', flush=True); time.sleep(12)\"]\n";
  auto ray_jobs = [&] {
    auto shown = RunProcess(stacked.Tputrain({"runs", "show", "--run", "stack-004", "--format", "json"}, "stack-004"),
                            std::chrono::minutes(1));
    std::vector<std::string> ids;
    if (shown.exit_code != 0) return ids;
    for (const auto& entry : json::parse(shown.out).value("entries", json::array())) {
      if (entry.value("kind", "") == "ray-job" && entry.value("state", "") == "created") ids.push_back(entry["name"]);
    }
    return ids;
  };
  REQUIRE(ray_jobs().size() == 1);  // the example's job
  ProcessOptions interrupted = stacked.Tputrain({"up", "-f", longer.string()}, "stack-004");
  ScopedProcess first(interrupted);
  REQUIRE(WaitFor([&] { return ray_jobs().size() == 2; }, std::chrono::minutes(2)));
  const std::string id = ray_jobs().back();
  kill(first.pid(), SIGINT);
  REQUIRE(WaitFor([&] { return !first.running(); }, std::chrono::seconds(60)));
  INFO("interrupted up\n" << first.ReadOut() << first.ReadErr());
  CHECK(first.Stop() == 130);
  CHECK((first.ReadOut() + first.ReadErr()).find("keeps running") != std::string::npos);
  auto resumed = RunProcess(stacked.Tputrain({"up", "-f", longer.string()}, "stack-004"), std::chrono::minutes(5));
  INFO("up again, after Ctrl-C\n" << Tail(resumed.out) << Tail(resumed.err));
  REQUIRE(resumed.exit_code == 0);
  CHECK(resumed.out.find("job " + id + " SUCCEEDED") != std::string::npos);
  CHECK(ray_jobs().size() == 2);

  auto down = RunProcess(stacked.Tputrain({"down", "-f", file, "--yes"}, "stack-004"), std::chrono::minutes(10));
  INFO("down\n" << Tail(down.out) << Tail(down.err));
  REQUIRE(down.exit_code == 0);
  CHECK(down.out.find("run stack-004: down") != std::string::npos);
  CheckLeftNothing(emulator);
  fs::remove_all("/tmp/tputrain-runs/stack-004", ignored);
}

}  // namespace
}  // namespace tputrain::testing
