// Where a RayCluster's TPU slices land, against a real kube-apiserver: the rendered placement
// rule as the API server admits it, the check after `ready` that every multi-host slice is on one
// node pool, and whether GKE's Ray TPU webhook is registered. No scheduler runs in this binary, so
// the test plays it: Nodes labelled as GKE labels TPU slice nodes, pods bound to them through the
// pods/binding subresource, as kube-scheduler binds; a split is drawn exactly as wanted here, where
// the real scheduler only splits nearly always. The real scheduler and KubeRay place the rendered
// cluster in raycluster_plane_integration_test.cc.
#include <catch2/catch.hpp>

#include <filesystem>

#include "k8s/k8s_test_util.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

constexpr const char* kReplicaLabel = "ray.io/worker-group-replica-name";

ProcessResult Tputrain(const std::vector<std::string>& args, const std::string& kubeconfig) {
  ProcessOptions options;
  options.argv = {TputrainBinary()};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.env = {{"KUBECONFIG", kubeconfig},
                 {"NO_COLOR", "1"},
                 {"XDG_STATE_HOME", kubeconfig + ".state"},
                 {"XDG_CONFIG_HOME", kubeconfig + ".config"},
                 {"TPUTRAIN_RUN", std::nullopt},
                 {"RAY_ADDRESS", std::nullopt}};
  return RunProcess(options, std::chrono::seconds(120));
}

int Lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

// The worker group of raycluster-maxtext as `tputrain render` writes it for the seed.
nlohmann::json RenderedWorkerGroup(ApiServer& server, const std::string& tag) {
  const std::string out = server.dir() + "/render-" + tag;
  auto rendered = RunProcess(
      {.argv = {TputrainBinary(), "render", "raycluster-maxtext", "--values",
                std::string(TPUTRAIN_SOURCE_DIR) + "/tests/render/seed-values/raycluster-maxtext.yaml", "-o", out},
       .env = {{"TPUTRAIN_BUCKET", std::nullopt}, {"TPUTRAIN_TEMPLATE_DIR", std::nullopt}}});
  INFO(rendered.err);
  REQUIRE(rendered.exit_code == 0);
  auto objects = Parse(ReadTextFile(out + "/raycluster.yaml"));
  REQUIRE(objects.size() == 1);
  return objects[0].json["spec"]["workerGroupSpecs"][0];
}

// A TPU slice node as GKE labels it, in node pool `pool`.
void AddTpuNode(k8s::Client& admin, const std::string& name, const std::string& pool) {
  CreateObject(admin, "/api/v1/nodes",
               {{"apiVersion", "v1"},
                {"kind", "Node"},
                {"metadata",
                 {{"name", name},
                  {"labels",
                   {{"cloud.google.com/gke-nodepool", pool},
                    {"cloud.google.com/gke-tpu-accelerator", "tpu-v6e-slice"},
                    {"cloud.google.com/gke-tpu-topology", "4x4"},
                    {"kubernetes.io/hostname", name}}}}},
                {"spec", {{"taints", {{{"key", "google.com/tpu"}, {"value", "present"}, {"effect", "NoSchedule"}}}}}}});
}

// A worker pod of replica `replica` of RayCluster `cluster`, labelled as KubeRay 1.6 labels it,
// bound to `node` as the scheduler binds.
void BoundWorker(k8s::Client& admin, const std::string& ns, const std::string& cluster, const std::string& replica,
                 int host, const std::string& node) {
  const std::string name = replica + "-worker-" + std::to_string(host);
  CreateObject(admin, "/api/v1/namespaces/" + ns + "/pods",
               {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata",
                 {{"name", name},
                  {"labels",
                   {{"ray.io/cluster", cluster},
                    {"ray.io/group", "tpu-group"},
                    {"ray.io/node-type", "worker"},
                    {"app.kubernetes.io/name", "kuberay"},
                    {kReplicaLabel, replica},
                    {"ray.io/replica-host-index", std::to_string(host)}}}}},
                {"spec", {{"containers", {{{"name", "ray-worker"}, {"image", "rayproject/ray:2.60.0"}}}}}}});
  CreateObject(admin, "/api/v1/namespaces/" + ns + "/pods/" + name + "/binding",
               {{"apiVersion", "v1"},
                {"kind", "Binding"},
                {"metadata", {{"name", name}}},
                {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}});
}

std::string TpuRayClusterYaml(const std::string& name, const std::string& ns) {
  return RayClusterYaml(name, ns) +
         "  workerGroupSpecs:\n  - groupName: tpu-group\n    replicas: 2\n    numOfHosts: 4\n    rayStartParams: {}\n"
         "    template:\n      spec:\n        containers:\n        - name: ray-worker\n"
         "          image: rayproject/ray:2.60.0\n";
}

void PlayReady(k8s::Client& admin, const std::string& ns, const std::string& name) {
  WriteStatus(admin, "/apis/ray.io/v1/namespaces/" + ns + "/rayclusters/" + name,
              {{"state", "ready"}, {"readyWorkerReplicas", 8}, {"desiredWorkerReplicas", 8}});
}

TEST_CASE("the rendered placement rule is what the API server admits; the replica key in labelSelector too is refused",
          "[integration]") {
  auto& server = ApiServer::Shared();
  std::string ns = server.NewNamespace("placement");
  auto group = RenderedWorkerGroup(server, ns);
  auto pod_template = group["template"];
  const std::string account = pod_template["spec"]["serviceAccountName"];
  CreateObject(server.admin(), "/api/v1/namespaces/" + ns + "/serviceaccounts",
               {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", account}}}});

  // The pod KubeRay makes from the template: its labels on the template's spec, unchanged.
  auto pod_with = [&](const std::string& name, const nlohmann::json& spec) {
    nlohmann::json metadata = pod_template.value("metadata", nlohmann::json::object());
    metadata["name"] = name;
    metadata["labels"] = {{"ray.io/cluster", "maxtext-tpu-cluster"},
                          {"ray.io/group", "tpu-group"},
                          {"ray.io/node-type", "worker"},
                          {"app.kubernetes.io/name", "kuberay"},
                          {kReplicaLabel, "tpu-group-x7k2p"},
                          {"ray.io/replica-host-index", "0"}};
    return nlohmann::json{{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", spec}};
  };
  CreateObject(server.admin(), "/api/v1/namespaces/" + ns + "/pods", pod_with("worker-0", pod_template["spec"]));
  auto stored = server.admin().GetJson("/api/v1/namespaces/" + ns + "/pods/worker-0", "");
  REQUIRE(stored);
  const auto& affinity = (*stored)["spec"]["affinity"];
  INFO(affinity.dump(2));
  // Admitted as written: each term keyed by the replica label over the node pool.
  const auto& together = affinity["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0];
  const auto& apart = affinity["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0];
  CHECK(together["topologyKey"] == "cloud.google.com/gke-nodepool");
  CHECK(together["matchLabelKeys"] == nlohmann::json::array({kReplicaLabel}));
  CHECK(apart["topologyKey"] == "cloud.google.com/gke-nodepool");
  CHECK(apart["mismatchLabelKeys"] == nlohmann::json::array({kReplicaLabel}));
  // The API server joined the pod's own replica to the selectors: same replica together,
  // other replicas apart.
  CHECK(together["labelSelector"]["matchExpressions"] ==
        nlohmann::json::parse(R"([{"key": "ray.io/worker-group-replica-name", "operator": "In",
                                   "values": ["tpu-group-x7k2p"]}])"));
  CHECK(apart["labelSelector"]["matchExpressions"] ==
        nlohmann::json::parse(R"([{"key": "ray.io/worker-group-replica-name", "operator": "NotIn",
                                   "values": ["tpu-group-x7k2p"]}])"));

  // The mistake the notes record: the key also in labelSelector. The API server refuses the pod
  // (and KubeRay would loop on FailedCreateWorkerPod).
  auto wrong = pod_template["spec"];
  wrong["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]["labelSelector"]
       ["matchExpressions"] = {{{"key", kReplicaLabel}, {"operator", "Exists"}}};
  auto refused = server.admin().Send("POST", "/api/v1/namespaces/" + ns + "/pods", pod_with("worker-1", wrong).dump());
  REQUIRE(refused);
  CHECK(refused->status == 422);
  CHECK(refused->body.find("exists in both matchLabelKeys and labelSelector") != std::string::npos);
}

TEST_CASE("wait raycluster/NAME: ready with a slice split over two node pools fails in one line; one pool each passes",
          "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  std::string ns = server.NewNamespace("pools");
  std::string kubeconfig = server.WriteKubeconfig("pools-" + ns, server.admin_token(), ns);
  // Two pools of the same topology, four hosts each.
  for (const char* pool : {"a", "b"}) {
    for (int host = 0; host < 4; ++host) {
      AddTpuNode(server.admin(), ns + "-" + pool + "-" + std::to_string(host), ns + "-v6e-4x4-" + pool);
    }
  }
  auto node = [&](const char* pool, int host) { return ns + "-" + pool + "-" + std::to_string(host); };

  // What the scheduler did without a placement rule (placement.md): 2+2 and 2+2.
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  REQUIRE(ApplyYaml(*connection, TpuRayClusterYaml("split", ns)));
  for (int host = 0; host < 4; ++host) {
    BoundWorker(server.admin(), ns, "split", "tpu-group-aaaaa", host, node(host < 2 ? "a" : "b", host));
    BoundWorker(server.admin(), ns, "split", "tpu-group-bbbbb", host, node(host < 2 ? "b" : "a", host));
  }
  PlayReady(server.admin(), ns, "split");
  auto split = Tputrain({"wait", "raycluster/split", "--timeout", "60s"}, kubeconfig);
  INFO(split.err);
  CHECK(split.exit_code == 1);
  CHECK(split.out.empty());
  CHECK(Lines(split.err) == 1);
  CHECK(split.err == "ERROR: (kubernetes) RayCluster " + ns +
                         "/split is ready, but its slice replica tpu-group-aaaaa is split over node pools " + ns +
                         "-v6e-4x4-a (2 hosts), " + ns +
                         "-v6e-4x4-b (2 hosts) (and 1 more replica is split): every host of a TPU slice must be "
                         "on one node pool, or JAX hangs at start; give the worker group the node-pool affinity of "
                         "template raycluster-maxtext, or use GKE's Ray add-on, whose TPU webhook adds it\n");

  // With the rule: each replica on a pool of its own.
  REQUIRE(ApplyYaml(*connection, TpuRayClusterYaml("placed", ns)));
  for (int host = 0; host < 4; ++host) {
    BoundWorker(server.admin(), ns, "placed", "tpu-group-ccccc", host, node("a", host));
    BoundWorker(server.admin(), ns, "placed", "tpu-group-ddddd", host, node("b", host));
  }
  PlayReady(server.admin(), ns, "placed");
  auto placed = Tputrain({"wait", "raycluster/placed", "--timeout", "60s"}, kubeconfig);
  INFO(placed.err);
  CHECK(placed.exit_code == 0);
  CHECK(placed.out == "RayCluster " + ns + "/placed ready\n");
  CHECK(placed.err.empty());

  // A user who may not read nodes still waits; the check it could not make is said.
  auto rbac = [&](const std::string& kind, const nlohmann::json& body) {
    CreateObject(server.admin(), "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/" + kind, body);
  };
  rbac("roles", {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                 {"kind", "Role"},
                 {"metadata", {{"name", "ray-reader"}}},
                 {"rules",
                  {{{"apiGroups", {"ray.io"}}, {"resources", {"rayclusters"}}, {"verbs", {"get", "list", "watch"}}},
                   {{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"get", "list"}}}}}});
  rbac("rolebindings",
       {{"apiVersion", "rbac.authorization.k8s.io/v1"},
        {"kind", "RoleBinding"},
        {"metadata", {{"name", "ray-reader"}}},
        {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "ray-reader"}}},
        {"subjects", {{{"kind", "User"}, {"name", "test-nobody"}}}}});
  auto nobody = server.WriteKubeconfig("pools-nobody-" + ns, server.nobody_token(), ns);
  auto unread = Tputrain({"wait", "raycluster/split", "--timeout", "60s"}, nobody);
  INFO(unread.err);
  CHECK(unread.exit_code == 0);
  CHECK(unread.err.find("WARNING: RayCluster " + ns +
                        "/split: the node pools of its TPU slices were not checked: node/" + ns + "-") !=
        std::string::npos);
  CHECK(unread.err.find("forbidden") != std::string::npos);
}

TEST_CASE("submit on a multi-host slice: says the TPU webhook is missing, applies the rule, stops at a split slice",
          "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  std::string ns = server.NewNamespace("submit-pools");
  std::string kubeconfig = server.WriteKubeconfig("submit-pools-" + ns, server.admin_token(), ns);
  for (const char* pool : {"a", "b"}) {
    for (int host = 0; host < 2; ++host) {
      AddTpuNode(server.admin(), ns + "-" + pool + "-" + std::to_string(host), ns + "-v6e-4x4-" + pool);
    }
  }
  const std::string path = "/apis/ray.io/v1/namespaces/" + ns + "/rayclusters/llama";
  ProcessOptions options;
  options.argv = {TputrainBinary(),
                  "submit",
                  "--model",
                  "llama3-8b",
                  "--tpu-type",
                  "v6e-16",
                  "--kubeconfig",
                  kubeconfig,
                  "--raycluster",
                  "llama",
                  "--image",
                  "tputrain-test/ray-maxtext:tpu",
                  "--raycluster-set",
                  "KSA_NAME=ray-ksa",
                  "--raycluster-set",
                  "GS_BUCKET=tputrain-test-bucket",
                  "--run",
                  "pools-run",
                  "--state-dir",
                  server.dir() + "/state-" + ns,
                  "--ready-timeout",
                  "2m"};
  options.env = {{"KUBECONFIG", std::nullopt},
                 {"RAY_ADDRESS", std::nullopt},
                 {"TPUTRAIN_RUN", std::nullopt},
                 {"NO_COLOR", "1"},
                 {"XDG_STATE_HOME", server.dir() + "/xdg-" + ns},
                 {"XDG_CONFIG_HOME", server.dir() + "/config-" + ns}};
  ScopedProcess submit(options);
  REQUIRE(WaitFor(
      [&] {
        auto got = server.admin().Send("GET", path);
        return (got && got->status == 200) || !submit.running();
      },
      std::chrono::minutes(2)));
  INFO(submit.ReadErr());
  auto cluster = server.admin().GetJson(path, "");
  REQUIRE(cluster);
  // Applied with the rule (what a scheduler would obey), and played here as the scheduler split
  // it without one: 2 + 2 hosts of the one slice.
  const auto& pod_spec = (*cluster)["spec"]["workerGroupSpecs"][0]["template"]["spec"];
  CHECK(pod_spec["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
                ["mismatchLabelKeys"] == nlohmann::json::array({kReplicaLabel}));
  for (int host = 0; host < 4; ++host) {
    BoundWorker(server.admin(), ns, "llama", "tpu-group-eeeee", host,
                ns + "-" + (host % 2 == 0 ? "a" : "b") + "-" + std::to_string(host / 2));
  }
  PlayReady(server.admin(), ns, "llama");
  REQUIRE(WaitFor([&] { return !submit.running(); }, std::chrono::minutes(3)));
  CHECK(submit.Stop() == 1);
  const std::string err = submit.ReadErr();
  INFO(err);
  CHECK(err.find("WARNING: no Ray TPU webhook (a MutatingWebhookConfiguration for pods labelled "
                 "app.kubernetes.io/name=kuberay") != std::string::npos);
  CHECK(err.find("\nERROR: (kubernetes) RayCluster " + ns +
                 "/llama is ready, but its slice replica tpu-group-eeeee is split over node pools " + ns +
                 "-v6e-4x4-a (2 hosts), " + ns +
                 "-v6e-4x4-b (2 hosts): every host of a TPU slice must be on one node pool, or JAX hangs at "
                 "start; give the worker group the node-pool affinity of template raycluster-maxtext, or use "
                 "GKE's Ray add-on, whose TPU webhook adds it\n") != std::string::npos);
  CHECK(err.find("job") == std::string::npos);  // stopped before any Ray job
}

TEST_CASE("operators check says whether GKE's Ray TPU webhook is registered, and what that means", "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  std::string ns = server.NewNamespace("webhook");
  std::string kubeconfig = server.WriteKubeconfig("webhook-" + ns, server.admin_token(), ns);

  auto absent = Tputrain({"operators", "check", "kuberay", "--format", "json"}, kubeconfig);
  INFO(absent.err);
  CHECK(absent.exit_code == 0);  // information, not a verdict
  CHECK(Lines(absent.err) == 1);
  CHECK(
      absent.err.starts_with("WARNING: no Ray TPU webhook (a MutatingWebhookConfiguration for pods labelled "
                             "app.kubernetes.io/name=kuberay, which GKE's Ray add-on installs): KubeRay's TPU pods "
                             "get no TPU_WORKER_HOSTNAMES, TPU_WORKER_ID or TPU_NAME"));
  auto json = nlohmann::json::parse(absent.out);
  CHECK(json[0]["tpu_webhook"]["state"] == "absent");

  // Registered as the add-on registers it (ai-on-gke/kuberay-tpu-webhook): pod CREATE, objectSelector
  // on KubeRay's label. Here it reaches no server and selects no namespace, so no other test's
  // pods go through it.
  const std::string name = "ray-tpu-webhook-" + ns;
  CreateObject(server.admin(), "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
               nlohmann::json::parse(R"({
    "apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
    "metadata": {"name": ")" + name + R"("},
    "webhooks": [{"name": "mutate-kuberay-tpu.test.tputrain",
                  "clientConfig": {"url": "https://127.0.0.1:9/mutate"},
                  "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                             "resources": ["pods"]}],
                  "objectSelector": {"matchLabels": {"app.kubernetes.io/name": "kuberay"}},
                  "namespaceSelector": {"matchLabels": {"tputrain.test/no-namespace": "true"}},
                  "failurePolicy": "Ignore", "sideEffects": "None", "admissionReviewVersions": ["v1"],
                  "timeoutSeconds": 1}]})"));
  auto present = Tputrain({"operators", "check", "kuberay", "--format", "json"}, kubeconfig);
  auto removed =
      server.admin().Send("DELETE", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/" + name);
  INFO(present.err);
  CHECK(present.exit_code == 0);
  CHECK(present.err == "GKE's Ray TPU webhook is registered (MutatingWebhookConfiguration " + name +
                           "): KubeRay's TPU pods get TPU_WORKER_HOSTNAMES, TPU_WORKER_ID and TPU_NAME, and each "
                           "multi-host slice one node pool\n");
  CHECK(nlohmann::json::parse(present.out)[0]["tpu_webhook"] ==
        nlohmann::json{{"state", "present"}, {"configuration", name}});
  REQUIRE(removed);
  CHECK(removed->ok());

  // Asked by a user who may not list webhook configurations: said, not failed.
  auto nobody = Tputrain({"operators", "check", "kuberay"},
                         server.WriteKubeconfig("webhook-nobody-" + ns, server.nobody_token(), ns));
  INFO(nobody.err);
  CHECK(nobody.exit_code == 0);
  CHECK(nobody.err.starts_with("WARNING: cannot tell whether GKE's Ray TPU webhook is registered: "));
  CHECK(nobody.err.find("forbidden") != std::string::npos);
}

}  // namespace
}  // namespace tputrain::testing
