// `tputrain submit --model` on a Kubernetes cluster, end to end: a real kube-apiserver and the real
// control plane (KubeRay makes the head pod and its Service, the scheduler places it, kwok runs it,
// the endpoints controller lists it), the head pod served by a real Ray head from the MaxText venv
// in a network namespace behind the service proxy, and real MaxText training on CPU. Then the same
// through the emulator's GKE cluster, on the Nodes of the node pool `cluster create` made.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>

#include "k8s/gke_emulator.h"
#include "k8s/integration_plane.h"
#include "k8s/k8s_test_util.h"
#include "k8s/netns_ray_head.h"
#include "ray/ray_head.h"
#include "testing/free_port.h"
#include "testing/scoped_process.h"
#include "tputrain/core/env.h"
#include "tputrain/http/curl_transport.h"
#include "tputrain/state/ledger.h"

namespace tputrain::testing {
namespace {

namespace fs = std::filesystem;

std::string MaxTextVenv() {
  auto env = core::Env::FromProcess();
  return env.GetOr("TPUTRAIN_TEST_CACHE", env.Home() + "/.cache/tputrain-test") + "/maxtext";
}

struct TempDir {
  std::string path;
  TempDir() {
    std::string pattern = "/tmp/trsubmit-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

std::optional<nlohmann::json> GetJson(k8s::Client& admin, const std::string& path) {
  auto response = admin.Send("GET", path);
  if (!response || !response->ok()) return std::nullopt;
  return nlohmann::json::parse(response->body);
}

std::string ResourceVersion(k8s::Client& admin, const std::string& path) {
  auto object = GetJson(admin, path);
  REQUIRE(object);
  return (*object)["metadata"]["resourceVersion"].get<std::string>();
}

bool RequestsTpu(const std::string& text) { return text.find("google.com/tpu") != std::string::npos; }

std::map<std::string, std::optional<std::string>> CliEnv(const std::string& home) {
  return {{"KUBECONFIG", std::nullopt},      {"RAY_ADDRESS", std::nullopt},         {"TPUTRAIN_RUN", std::nullopt},
          {"XDG_STATE_HOME", home + "/xdg"}, {"XDG_CONFIG_HOME", home + "/config"}, {"NO_COLOR", "1"}};
}

nlohmann::json ParseOut(const ProcessResult& result) {
  auto json = nlohmann::json::parse(result.out, nullptr, false);
  INFO(result.out);
  REQUIRE_FALSE(json.is_discarded());
  return json;
}

std::vector<const state::LedgerEntry*> EntriesOf(const state::Ledger& ledger, const std::string& kind) {
  std::vector<const state::LedgerEntry*> found;
  for (const auto& entry : ledger.entries) {
    if (entry.KindName() == kind) found.push_back(&entry);
  }
  return found;
}

// Runs `submit` in the background and, once KubeRay's head pod is scheduled, serves it at
// `head_ip` (the Ray head in a network namespace); returns what the command printed.
ProcessResult SubmitServingHead(const std::vector<std::string>& argv,
                                const std::map<std::string, std::optional<std::string>>& env, ControlPlane& plane,
                                const std::string& ns, const std::string& name, const std::string& head_ip) {
  ApiServer& server = plane.server();
  ScopedProcess submit(ProcessOptions{argv, env, "", ""});
  std::string path = "/apis/ray.io/v1/namespaces/" + ns + "/rayclusters/" + name;
  bool appeared =
      WaitFor([&] { return GetJson(server.admin(), path).has_value() || !submit.running(); }, std::chrono::minutes(3));
  INFO(submit.ReadErr());
  REQUIRE(appeared);
  auto cluster = GetJson(server.admin(), path);
  REQUIRE(cluster);
  CHECK((*cluster)["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "tputrain");
  CHECK_FALSE(RequestsTpu(cluster->dump()));
  CHECK((*cluster)["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["image"] ==
        "tputrain-test/ray-maxtext:cpu");
  plane.ServePodAt(ns, plane.WaitScheduledPod(ns, "ray.io/cluster=" + name + ",ray.io/node-type=head"), head_ip);
  WaitFor([&] { return !submit.running(); }, std::chrono::minutes(15));
  ProcessResult result;
  result.exit_code = submit.Stop();
  result.out = submit.ReadOut();
  result.err = submit.ReadErr();
  return result;
}

}  // namespace

TEST_CASE(
    "submit --model on a Kubernetes cluster renders, applies, waits, trains through the proxy, and reuses the "
    "RayCluster",
    "[integration]") {
  auto& plane = RayHeadPlane();
  auto& server = plane.server();
  std::string ns = server.NewNamespace("submit");
  NetnsRayHead head(MaxTextVenv());
  TempDir home;
  std::string kubeconfig = server.WriteKubeconfig("submit-" + ns, server.admin_token(), ns);
  const std::string name = "smoke";
  const std::string path = "/apis/ray.io/v1/namespaces/" + ns + "/rayclusters/" + name;
  const std::string state_dir = home.path + "/state";
  std::vector<std::string> common = {TputrainBinary(), "submit",
                                     "--model",        "maxtext-cpu-smoke",
                                     "--kubeconfig",   kubeconfig,
                                     "--raycluster",   name,
                                     "--image",        "tputrain-test/ray-maxtext:cpu",
                                     "--output-dir",   home.path + "/runs",
                                     "--set",          "jax_cache_dir=" + home.path + "/jax",
                                     "--run",          "cluster-run",
                                     "--state-dir",    state_dir,
                                     "--format",       "json"};
  auto env = CliEnv(home.path);

  SECTION("--dry-run prints the apply, then the job request, and changes nothing") {
    auto args = common;
    args.erase(args.end() - 2, args.end());  // the text form
    args.push_back("--dry-run");
    auto dry = RunProcess(ProcessOptions{args, env, "", ""}, std::chrono::seconds(120));
    INFO(dry.out << dry.err);
    REQUIRE(dry.exit_code == 0);
    std::string apply_line = "PATCH " + server.server() + path + "?fieldManager=tputrain\n";
    std::string job_line = "POST " + server.server() + "/api/v1/namespaces/" + ns + "/services/" + name +
                           "-head-svc:8265/proxy/api/jobs/\n";
    auto apply_at = dry.out.find(apply_line);
    auto job_at = dry.out.find(job_line);
    REQUIRE(apply_at != std::string::npos);
    REQUIRE(job_at != std::string::npos);
    CHECK(apply_at < job_at);
    CHECK(dry.out.find("python -m maxtext.trainers.pre_train.train") > job_at);
    CHECK_FALSE(RequestsTpu(dry.out));

    auto json_args = args;
    json_args.insert(json_args.end(), {"--format", "json"});
    auto dry_json = RunProcess(ProcessOptions{json_args, env, "", ""}, std::chrono::seconds(120));
    REQUIRE(dry_json.exit_code == 0);
    auto plan = ParseOut(dry_json);
    REQUIRE(plan["applies"].size() == 1);
    CHECK(plan["applies"][0]["body"]["kind"] == "RayCluster");
    CHECK(plan["applies"][0]["body"]["metadata"]["namespace"] == ns);
    CHECK(plan["job_requests"].back()["body"]["runtime_env"]["env_vars"]["JAX_PLATFORMS"] == "cpu");
    for (const auto* result : {&dry, &dry_json}) {
      CHECK(result->out.find(server.admin_token()) == std::string::npos);
      CHECK(result->err.find(server.admin_token()) == std::string::npos);
    }
    CHECK_FALSE(GetJson(server.admin(), path).has_value());  // nothing applied
    CHECK_FALSE(fs::exists(state_dir));                      // nothing recorded
  }

  SECTION("the first submit applies and waits; the second finds the RayCluster ready and reuses it") {
    auto first = SubmitServingHead(common, env, plane, ns, name, head.ip());
    INFO(first.out << first.err.substr(first.err.size() > 4000 ? first.err.size() - 4000 : 0));
    REQUIRE(first.exit_code == 0);
    auto json = ParseOut(first);
    CHECK(json["status"] == "SUCCEEDED");
    CHECK(json["summary"]["steps_logged"] == 8);
    CHECK(json["raycluster"]["name"] == name);
    CHECK(json["raycluster"]["namespace"] == ns);
    REQUIRE(json["raycluster"]["applied"].size() == 1);
    CHECK(json["raycluster"]["applied"][0]["action"] == "created");
    CHECK(first.err.find("RayCluster " + ns + "/" + name + " ready") != std::string::npos);
    std::string version = ResourceVersion(server.admin(), path);

    core::SystemClock clock;
    state::LedgerStore store(state_dir, clock);
    auto ledger = store.Load("cluster-run");
    REQUIRE(ledger);
    auto objects = EntriesOf(*ledger, "k8s-object");
    REQUIRE(objects.size() == 1);
    CHECK(objects[0]->name == "kubeconfig:test|ray.io/v1|RayCluster|" + ns + "|" + name);
    CHECK(objects[0]->state == state::EntryState::kCreated);
    CHECK(objects[0]->owned);
    CHECK(objects[0]->details == nlohmann::json{{"api_version", "ray.io/v1"},
                                                {"kind", "RayCluster"},
                                                {"namespace", ns},
                                                {"name", name},
                                                {"access", {{"kubeconfig", kubeconfig}, {"context", "test"}}}});
    auto jobs = EntriesOf(*ledger, "ray-job");
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0]->name == json["submission_id"].get<std::string>());
    CHECK(jobs[0]->state == state::EntryState::kCreated);
    CHECK(jobs[0]->details == nlohmann::json{{"raycluster", name},
                                             {"namespace", ns},
                                             {"access", {{"kubeconfig", kubeconfig}, {"context", "test"}}}});

    // The second submit logs every call it makes, Kubernetes and Ray alike, with the bearer token
    // the kubeconfig holds redacted from the headers it shows.
    auto verbose = common;
    verbose.insert(verbose.end(), {"--verbose", "--log-http"});
    auto second = RunProcess(ProcessOptions{verbose, env, "", ""}, std::chrono::seconds(900));
    INFO(second.out << second.err.substr(second.err.size() > 4000 ? second.err.size() - 4000 : 0));
    REQUIRE(second.exit_code == 0);
    const std::string proxy =
        server.server() + "/api/v1/namespaces/" + ns + "/services/" + name + "-head-svc:8265/proxy";
    CHECK(second.err.find("http: PATCH " + server.server() + path + "?fieldManager=tputrain") != std::string::npos);
    CHECK(second.err.find("http: GET " + proxy + "/api/version -> 200") != std::string::npos);
    CHECK(second.err.find("http: POST " + proxy + "/api/jobs/ -> 200") != std::string::npos);
    CHECK(second.err.find("ws: GET wss://" + proxy.substr(proxy.find("://") + 3) + "/api/jobs/") != std::string::npos);
    CHECK(second.err.find("Authorization: REDACTED") != std::string::npos);
    auto again = ParseOut(second);
    CHECK(again["status"] == "SUCCEEDED");
    CHECK(again["raycluster"]["applied"][0]["action"] == "unchanged");
    CHECK(again["raycluster"]["applied"][0]["resourceVersion"] == version);
    CHECK(ResourceVersion(server.admin(), path) == version);
    CHECK(again["submission_id"] != json["submission_id"]);

    ledger = store.Load("cluster-run");
    REQUIRE(ledger);
    REQUIRE(EntriesOf(*ledger, "k8s-object").size() == 1);
    CHECK(EntriesOf(*ledger, "k8s-object")[0]->owned);  // made by this run's first submit
    CHECK(EntriesOf(*ledger, "ray-job").size() == 2);

    // Another run finds the RayCluster there: recorded, but not its to delete.
    auto other = common;
    *std::find(other.begin(), other.end(), "cluster-run") = "other-run";
    other.insert(other.end(), {"--no-wait"});
    auto adopted = RunProcess(ProcessOptions{other, env, "", ""}, std::chrono::seconds(300));
    INFO(adopted.err);
    REQUIRE(adopted.exit_code == 0);
    auto other_ledger = store.Load("other-run");
    REQUIRE(other_ledger);
    REQUIRE(EntriesOf(*other_ledger, "k8s-object").size() == 1);
    CHECK_FALSE(EntriesOf(*other_ledger, "k8s-object")[0]->owned);

    for (const auto* result : {&first, &second, &adopted}) {
      CHECK(result->out.find(server.admin_token()) == std::string::npos);
      CHECK(result->err.find(server.admin_token()) == std::string::npos);
    }
  }
}

TEST_CASE("submit --address records its Ray job in the run ledger, and refuses cluster flags beside it",
          "[integration]") {
  RayHead head(RayHead::Options{"", 1, {}});
  TempDir home;
  auto env = CliEnv(home.path);
  const std::string state_dir = home.path + "/state";
  auto result = RunProcess(ProcessOptions{{TputrainBinary(), "submit", "--model", "maxtext-cpu-smoke", "--address",
                                           head.address(), "--launcher", "python -c pass", "--no-wait", "--run",
                                           "address-run", "--state-dir", state_dir, "--format", "json"},
                                          env,
                                          "",
                                          ""},
                           std::chrono::seconds(300));
  INFO(result.out << result.err);
  REQUIRE(result.exit_code == 0);
  auto json = ParseOut(result);
  core::SystemClock clock;
  state::LedgerStore store(state_dir, clock);
  auto ledger = store.Load("address-run");
  REQUIRE(ledger);
  auto jobs = EntriesOf(*ledger, "ray-job");
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0]->name == json["submission_id"].get<std::string>());
  CHECK(jobs[0]->state == state::EntryState::kCreated);
  CHECK(jobs[0]->details == nlohmann::json{{"address", head.address()}});
  CHECK(EntriesOf(*ledger, "k8s-object").empty());

  for (const char* flag : {"--raycluster", "--kubeconfig", "--image"}) {
    auto both = RunProcess(ProcessOptions{{TputrainBinary(), "submit", "--model", "maxtext-cpu-smoke", "--address",
                                           head.address(), flag, "x", "--state-dir", state_dir},
                                          env,
                                          "",
                                          ""});
    CHECK(both.exit_code == 2);
    CHECK(both.err == std::string("ERROR: --address and ") + flag +
                          " are exclusive: pass --address for a Ray you reach directly, or the cluster flags for a "
                          "RayCluster tputrain applies\n");
  }
}

TEST_CASE("cluster create on the emulator, then submit --model on that cluster, end to end", "[integration]") {
  auto& plane = RayHeadPlane();
  auto& server = plane.server();
  std::string ns = server.NewNamespace("emusubmit");
  TempDir home;
  GkeEmulator emulator(server, home.path);
  REQUIRE(emulator.ready());
  WriteTextFile(home.path + "/google-token", server.google_token() + "\n");
  fs::create_directories(home.path + "/gcloud");
  auto env = CliEnv(home.path);
  env["CLOUDSDK_API_ENDPOINT_OVERRIDES_CONTAINER"] = emulator.url() + "/";
  env["CLOUDSDK_AUTH_ACCESS_TOKEN_FILE"] = home.path + "/google-token";
  env["CLOUDSDK_CONFIG"] = home.path + "/gcloud";
  env["CLOUDSDK_CORE_PROJECT"] = "p";
  const std::string state_dir = home.path + "/state";
  const std::string kubeconfig = home.path + "/kubeconfig";
  auto tputrain = [&](std::vector<std::string> args) {
    args.insert(args.begin(), TputrainBinary());
    return RunProcess(ProcessOptions{args, env, "", ""}, std::chrono::seconds(300));
  };

  auto created = tputrain({"cluster", "create", "ray-cpu", "--location", "us-east5-b", "--ray-operator", "--run",
                           "emu-run", "--state-dir", state_dir});
  INFO(created.out << created.err);
  REQUIRE(created.exit_code == 0);
  // The cluster's default node pool becomes kwok Nodes with GKE's labels, where the head can run.
  SyncEmulatorNodePools(server.admin(), emulator.url());
  // --dry-run reads the cluster and says where the entry would go, and writes nothing.
  auto dry_credentials = tputrain(
      {"cluster", "get-credentials", "ray-cpu", "--location", "us-east5-b", "--kubeconfig", kubeconfig, "--dry-run"});
  INFO(dry_credentials.out << dry_credentials.err);
  REQUIRE(dry_credentials.exit_code == 0);
  CHECK(dry_credentials.err.find("would be written to " + kubeconfig) != std::string::npos);
  CHECK_FALSE(fs::exists(kubeconfig));
  // The cluster's kubeconfig entry, as gcloud writes it: gke-gcloud-auth-plugin, served by
  // tputrain's own Google token.
  auto credentials =
      tputrain({"cluster", "get-credentials", "ray-cpu", "--location", "us-east5-b", "--kubeconfig", kubeconfig});
  INFO(credentials.out << credentials.err);
  REQUIRE(credentials.exit_code == 0);
  const std::string context = "gke_p_us-east5-b_ray-cpu";
  std::vector<std::string> submit = {TputrainBinary(),
                                     "submit",
                                     "--model",
                                     "maxtext-cpu-smoke",
                                     "--kubeconfig",
                                     kubeconfig,
                                     "-n",
                                     ns,
                                     "--image",
                                     "tputrain-test/ray-maxtext:cpu",
                                     "--output-dir",
                                     home.path + "/runs",
                                     "--set",
                                     "jax_cache_dir=" + home.path + "/jax",
                                     "--run",
                                     "emu-run",
                                     "--state-dir",
                                     state_dir};
  const std::string name = "maxtext-cpu-smoke";  // the default name for the CPU preset
  const std::string path = "/apis/ray.io/v1/namespaces/" + ns + "/rayclusters/" + name;

  auto dry_args = submit;
  dry_args.push_back("--dry-run");
  auto dry = RunProcess(ProcessOptions{dry_args, env, "", ""}, std::chrono::seconds(120));
  INFO(dry.out << dry.err);
  REQUIRE(dry.exit_code == 0);
  auto apply_at = dry.out.find("PATCH " + server.server() + path + "?fieldManager=tputrain\n");
  auto job_at = dry.out.find("POST " + server.server() + "/api/v1/namespaces/" + ns + "/services/" + name +
                             "-head-svc:8265/proxy/api/jobs/\n");
  REQUIRE(apply_at != std::string::npos);
  REQUIRE(job_at != std::string::npos);
  CHECK(apply_at < job_at);
  CHECK_FALSE(GetJson(server.admin(), path).has_value());

  NetnsRayHead head(MaxTextVenv());
  submit.insert(submit.end(), {"--format", "json"});
  auto result = SubmitServingHead(submit, env, plane, ns, name, head.ip());
  INFO(result.out << result.err.substr(result.err.size() > 4000 ? result.err.size() - 4000 : 0));
  REQUIRE(result.exit_code == 0);
  auto json = ParseOut(result);
  CHECK(json["status"] == "SUCCEEDED");
  CHECK(json["summary"]["steps_logged"] == 8);
  CHECK(json["raycluster"]["applied"][0]["action"] == "created");

  // One ledger for the run: the GKE cluster, then the RayCluster and the job on it.
  core::SystemClock clock;
  state::LedgerStore store(state_dir, clock);
  auto ledger = store.Load("emu-run");
  REQUIRE(ledger);
  CHECK(EntriesOf(*ledger, "cluster").size() == 1);
  auto objects = EntriesOf(*ledger, "k8s-object");
  REQUIRE(objects.size() == 1);
  CHECK(objects[0]->name == "kubeconfig:" + context + "|ray.io/v1|RayCluster|" + ns + "|" + name);
  CHECK(objects[0]->details["access"] == nlohmann::json{{"kubeconfig", kubeconfig}, {"context", context}});
  auto jobs = EntriesOf(*ledger, "ray-job");
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0]->name == json["submission_id"].get<std::string>());

  // The same cluster named as GKE knows it: no kubeconfig, the endpoint and CA from clusters.get,
  // the token from the Google credentials. The ready RayCluster is reused.
  std::vector<std::string> by_name = {TputrainBinary(),
                                      "submit",
                                      "--model",
                                      "maxtext-cpu-smoke",
                                      "--cluster",
                                      "ray-cpu",
                                      "--location",
                                      "us-east5-b",
                                      "-n",
                                      ns,
                                      "--image",
                                      "tputrain-test/ray-maxtext:cpu",
                                      "--output-dir",
                                      home.path + "/runs",
                                      "--set",
                                      "jax_cache_dir=" + home.path + "/jax",
                                      "--run",
                                      "emu-run",
                                      "--state-dir",
                                      state_dir,
                                      "--format",
                                      "json"};
  auto named = RunProcess(ProcessOptions{by_name, env, "", ""}, std::chrono::seconds(300));
  INFO(named.out << named.err.substr(named.err.size() > 4000 ? named.err.size() - 4000 : 0));
  REQUIRE(named.exit_code == 0);
  auto named_json = ParseOut(named);
  CHECK(named_json["status"] == "SUCCEEDED");
  CHECK(named_json["raycluster"]["applied"][0]["action"] == "unchanged");
  ledger = store.Load("emu-run");
  REQUIRE(ledger);
  const std::string gke = "projects/p/locations/us-east5-b/clusters/ray-cpu";
  bool recorded_by_name = false;
  for (const auto* entry : EntriesOf(*ledger, "k8s-object")) {
    if (entry->details["access"] == nlohmann::json{{"gke_cluster", gke}}) {
      recorded_by_name = true;
      CHECK(entry->name == "gke:" + gke + "|ray.io/v1|RayCluster|" + ns + "|" + name);
    }
  }
  CHECK(recorded_by_name);
  CHECK(EntriesOf(*ledger, "ray-job").size() == 2);

  // cleanup: the jobs (finished), the RayCluster (Foreground; the garbage collector deletes its
  // pods first), then the GKE cluster on the emulator; the whole ledger ends deleted.
  auto cleaned = tputrain({"cleanup", "--run", "emu-run", "--yes", "--state-dir", state_dir, "--format", "json"});
  INFO(cleaned.out << cleaned.err);
  REQUIRE(cleaned.exit_code == 0);
  CHECK_FALSE(GetJson(server.admin(), path).has_value());
  http::CurlTransport transport;
  http::Request state_request;
  state_request.url = emulator.url() + "/_emulator/state";
  auto state = transport.Send(state_request);
  REQUIRE(state);
  const auto emulated = nlohmann::json::parse(state->body);
  const auto clusters = emulated.value("clusters", nlohmann::json::object());
  for (const auto& [key, cluster] : clusters.items()) {
    CHECK(key.find("/clusters/ray-cpu") == std::string::npos);
  }
  ledger = store.Load("emu-run");
  REQUIRE(ledger);
  for (const auto& entry : ledger->entries) {
    INFO(entry.KindName() << " " << entry.name);
    CHECK((entry.state == state::EntryState::kDeleted || !entry.owned));
  }
  CHECK(ledger->Live().size() <= 1);                      // at most the RayCluster entry adopted under the GKE access
  SyncEmulatorNodePools(server.admin(), emulator.url());  // the deleted cluster's Nodes go too

  for (const auto* run : {&created, &credentials, &dry, &result, &named, &cleaned}) {
    CHECK(run->out.find(server.google_token()) == std::string::npos);
    CHECK(run->err.find(server.google_token()) == std::string::npos);
  }
}

}  // namespace tputrain::testing
