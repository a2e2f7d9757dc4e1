#include "k8s/control_plane.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "testing/free_port.h"
#include "tputrain/core/base64.h"
#include "tputrain/http/curl_transport.h"
#include "tputrain/k8s/manifest.h"

namespace tputrain::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string PeerPath(const std::string& name) {
  std::string path = K8sPeerDir() + "/" + name;
  if (access(path.c_str(), R_OK) != 0) {
    throw std::runtime_error(path + " is missing: run scripts/peers/k8s.sh (scripts/setup-test-peers.sh)");
  }
  return path;
}

// kube-controller-manager's controllers the tests need: workloads and their pods, endpoints, the
// garbage collector and namespace deletion, service accounts, and node lifecycle (it lifts the
// not-ready taint that admission puts on every new Node; without it nothing schedules).
constexpr const char* kControllers =
    "deployment,replicaset,job,cronjob,statefulset,endpoint,endpointslice,garbagecollector,serviceaccount,"
    "namespace,ttl-after-finished,podgc,root-ca-cert-publisher,nodelifecycle";

YAML::Node LoadStage(const std::string& file) { return YAML::LoadFile(PeerPath("manifests/kwok/" + file)); }

void AddExpression(YAML::Node stage, const std::string& key, const std::string& op,
                   const std::vector<std::string>& values = {}) {
  YAML::Node expression;
  expression["key"] = key;
  expression["operator"] = op;
  for (const auto& value : values) expression["values"].push_back(value);
  stage["spec"]["selector"]["matchExpressions"].push_back(expression);
}

std::string LabelKey(const std::string& label) { return ".metadata.labels[\"" + label + "\"]"; }
std::string AnnotationKey(const std::string& annotation) { return ".metadata.annotations[\"" + annotation + "\"]"; }

// Replaces the first `from` in `text` by `to`; the stage's own text must have it.
// Whether something accepts TCP connections on 127.0.0.1:port.
bool Listening(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  ::close(fd);
  return connected;
}

void ReplaceIn(std::string& text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("kwok's stage has no '" + from + "'");
  text.replace(at, from.size(), to);
}

// The kustomize json6902 patches of an operator's release (LWS, JobSet): each replaces one
// webhook whole (with its pod objectSelector).
void ApplyWebhookPatches(const std::string& name, json& body, const YAML::Node& patches) {
  for (const auto& patch : patches) {
    std::string op = patch["op"].as<std::string>();
    std::string path = patch["path"].as<std::string>();
    if (op != "replace" || path.rfind("/webhooks/", 0) != 0) {
      throw std::runtime_error(name + ": unexpected webhook patch " + op + " " + path);
    }
    size_t index = std::stoul(path.substr(10));
    // Typed as the API server reads YAML, through the manifest reader (it wants a whole object).
    YAML::Node wrapper;
    wrapper["apiVersion"] = "v1";
    wrapper["kind"] = "Patch";
    wrapper["metadata"]["name"] = "patch";
    wrapper["value"] = patch["value"];
    YAML::Emitter emitted;
    emitted << wrapper;
    auto value = k8s::ParseManifests(emitted.c_str(), path);
    if (!value || index >= body["webhooks"].size()) {
      throw std::runtime_error(name + ": bad webhook patch " + path + (value ? "" : ": " + value.error().message));
    }
    body["webhooks"][index] = value->front().json["value"];
  }
}

// Kueue's kustomization patches its webhook configurations by webhook name, giving the pod,
// Deployment and StatefulSet webhooks a namespaceSelector (kube-system and kueue-system left out).
void ApplyNamespaceSelectors(json& body, const YAML::Node& kustomization) {
  for (const auto& item : kustomization["patches"]) {
    YAML::Node patch = YAML::Load(item["patch"].as<std::string>());
    if (patch["kind"].as<std::string>() != body.value("kind", "")) continue;
    for (const auto& hook : patch["webhooks"]) {
      std::vector<std::string> values;
      const auto& expression = hook["namespaceSelector"]["matchExpressions"][0];
      for (const auto& value : expression["values"]) values.push_back(value.as<std::string>());
      for (auto& webhook : body["webhooks"]) {
        if (webhook.value("name", "") != hook["name"].as<std::string>()) continue;
        webhook["namespaceSelector"] = {{"matchExpressions",
                                         {{{"key", expression["key"].as<std::string>()},
                                           {"operator", expression["operator"].as<std::string>()},
                                           {"values", values}}}}};
      }
    }
  }
}

}  // namespace

ControlPlane& ControlPlane::Shared(const ControlPlaneOptions& options) {
  static ControlPlane plane(ApiServer::Shared(), options);
  const auto& have = plane.options();
  bool covered = have.pod_end == options.pod_end && (have.kuberay || !options.kuberay) && (have.lws || !options.lws) &&
                 (have.jobset || !options.jobset) && (have.kueue || !options.kueue) &&
                 have.answering_pods == options.answering_pods;
  if (!covered) throw std::runtime_error("ControlPlane::Shared: this test binary's control plane has other options");
  return plane;
}

ControlPlane::ControlPlane(ApiServer& server, ControlPlaneOptions options)
    : server_(server), options_(std::move(options)), dir_(server.dir() + "/control-plane") {
  fs::create_directories(dir_);
  kubeconfig_ = server_.WriteKubeconfig("control-plane.kubeconfig", server_.admin_token(), "default");
  std::string k8s = K8sPeerDir();

  // Everything that needs no CRD starts at once; the operators start as soon as their CRDs are in.
  StartPeer(
      "kube-controller-manager",
      {PeerPath("kube-controller-manager"), "--kubeconfig=" + kubeconfig_, "--authentication-kubeconfig=" + kubeconfig_,
       "--authorization-kubeconfig=" + kubeconfig_, "--bind-address=127.0.0.1", "--secure-port=0",
       "--leader-elect=false", "--use-service-account-credentials=false", "--root-ca-file=" + server_.dir() + "/ca.crt",
       std::string("--controllers=") + kControllers,
       // Node health every second rather than every 5 s: new kwok Nodes are schedulable sooner.
       "--node-monitor-period=1s"});
  StartPeer("kube-scheduler",
            {PeerPath("kube-scheduler"), "--kubeconfig=" + kubeconfig_, "--authentication-kubeconfig=" + kubeconfig_,
             "--authorization-kubeconfig=" + kubeconfig_, "--bind-address=127.0.0.1", "--secure-port=0",
             "--leader-elect=false"});
  StartPeer("kwok", {PeerPath("kwok"), "--kubeconfig=" + kubeconfig_, "--manage-all-nodes=false",
                     "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
                     // Pod addresses from loopback, so that no made-up pod IP is ever routable.
                     "--cidr=127.100.0.1/16", "--node-ip=127.0.0.1", "--node-lease-duration-seconds=40",
                     "--config=" + WriteKwokStages()});

  if (options_.kuberay || options_.lws || options_.jobset || options_.kueue) {
    server_.EnsureCrds();
    ApplyOperatorCrds();
  }
  if (options_.kuberay) {
    int probe = FreeLoopbackPort();
    StartPeer("kuberay-operator",
              // No metrics server (as LWS's and JobSet's configs say): one port fewer to collide on.
              {PeerPath("kuberay-operator"), "--metrics-addr=0",
               "--health-probe-bind-address=127.0.0.1:" + std::to_string(probe), "--enable-leader-election=false",
               "--log-stdout-encoder=console"},
              probe, {{"KUBECONFIG", kubeconfig_}});
  }
  // LWS and JobSet serve their (required) webhooks on loopback with the API server's own
  // certificate (IP:127.0.0.1, signed by the fixture's CA): no cert-manager, no Secret.
  if (options_.lws || options_.jobset || options_.kueue) {
    fs::create_directories(dir_ + "/webhook-certs");
    fs::copy_file(server_.dir() + "/server.crt", dir_ + "/webhook-certs/tls.crt", fs::copy_options::overwrite_existing);
    fs::copy_file(server_.dir() + "/server.key", dir_ + "/webhook-certs/tls.key", fs::copy_options::overwrite_existing);
  }
  for (const auto& [name, group, wanted] : {std::tuple{"lws", "config.lws.x-k8s.io/v1alpha1", options_.lws},
                                            std::tuple{"jobset", "config.jobset.x-k8s.io/v1alpha1", options_.jobset}}) {
    if (!wanted) continue;
    int webhook = FreeLoopbackPort();
    int probe = FreeLoopbackPort();
    StartPeer(
        std::string(name) + "-controller",
        {PeerPath(std::string(name) + "-controller"), "--config=" + WriteOperatorConfig(name, group, webhook, probe)},
        probe, {{"KUBECONFIG", kubeconfig_}});
    peers_.back().webhook_port = webhook;
    peers_.back().webhook_paths = RegisterWebhooks(name, webhook);
  }
  if (options_.kueue) {
    int webhook = FreeLoopbackPort();
    int probe = FreeLoopbackPort();
    // The integrations of the workloads tputrain runs (Kueue's release enables these and more;
    // kinds without a CRD here are left out), and no visibility server (an aggregated API that
    // would listen beyond loopback; tputrain does not read it).
    // Without its own cert management Kueue reads its metrics certificate from a fixed path,
    // /etc/kueue/metrics/certs: the fixture's (the API server's IP:127.0.0.1 pair) is bound there
    // in a mount namespace of the manager's own (only the empty mount point is made on the host).
    fs::create_directories("/etc/kueue/metrics/certs");
    StartPeer("kueue-manager",
              {"unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
               "mount --bind \"$0\" /etc/kueue/metrics/certs && exec \"$@\"", dir_ + "/webhook-certs",
               PeerPath("kueue-manager"),
               "--config=" + WriteOperatorConfig("kueue", "config.kueue.x-k8s.io/v1beta2", webhook, probe,
                                                 "integrations:\n  frameworks:\n  - batch/job\n  - ray.io/rayjob\n"
                                                 "  - ray.io/raycluster\n  - jobset.x-k8s.io/jobset\n  - pod\n"
                                                 "  - leaderworkerset.x-k8s.io/leaderworkerset\n"),
               "--feature-gates=VisibilityOnDemand=false"},
              probe, {{"KUBECONFIG", kubeconfig_}});
    peers_.back().webhook_port = webhook;
    peers_.back().webhook_paths = RegisterWebhooks("kueue", webhook);
  }
  WaitUp();
}

ControlPlane::~ControlPlane() {
  // Operators first (they write through the API server), then the rest; each by its PID.
  for (auto it = peers_.rbegin(); it != peers_.rend(); ++it) it->process.reset();
}

void ControlPlane::StartPeer(const std::string& name, std::vector<std::string> argv, int probe_port,
                             std::vector<std::pair<std::string, std::string>> env) {
  ProcessOptions options;
  options.argv = {"setpriv", "--pdeathsig", "KILL", "--"};
  options.argv.insert(options.argv.end(), argv.begin(), argv.end());
  for (auto& [key, value] : env) options.env[key] = value;
  options.working_dir = dir_;
  peers_.push_back({name, std::make_unique<ScopedProcess>(options), probe_port});
}

// kwok's stock stages from the peer directory, adjusted: pods that must answer get no address of
// kwok's; they become Running and Ready at the address the harness annotates them with.
std::string ControlPlane::WriteKwokStages() const {
  std::vector<YAML::Node> stages;
  YAML::Node ready = LoadStage("pod-ready.yaml");
  YAML::Node ready_at = YAML::Clone(ready);
  AddExpression(ready, AnnotationKey(kPodIpAnnotation), "DoesNotExist");
  for (const auto& [label, value] : options_.answering_pods) AddExpression(ready, LabelKey(label), "NotIn", {value});
  stages.push_back(ready);

  ready_at["metadata"]["name"] = "pod-ready-at-served-address";
  AddExpression(ready_at, AnnotationKey(kPodIpAnnotation), "Exists");
  std::string status = ready_at["spec"]["next"]["statusTemplate"].as<std::string>();
  auto at = status.find("podIP:");
  if (at == std::string::npos) throw std::runtime_error("kwok's pod-ready stage has no podIP line");
  status.replace(at, status.find('\n', at) - at,
                 "podIP: {{ index .metadata.annotations \"" + std::string(kPodIpAnnotation) + "\" | Quote }}");
  ready_at["spec"]["next"]["statusTemplate"] = status;
  stages.push_back(ready_at);

  // A running pod the test asks to end: kwok's completion, for any pod, with the exit code asked.
  YAML::Node exit_stage = LoadStage("pod-complete.yaml");
  YAML::Node kept(YAML::NodeType::Sequence);
  for (const auto& expression : exit_stage["spec"]["selector"]["matchExpressions"]) {
    if (expression["key"].as<std::string>().find("ownerReferences") == std::string::npos) kept.push_back(expression);
  }
  exit_stage["metadata"]["name"] = "pod-exit-on-request";
  exit_stage["spec"]["selector"]["matchExpressions"] = kept;
  AddExpression(exit_stage, AnnotationKey(kExitCodeAnnotation), "Exists");
  // `$`: the pod, also inside the template's range over containers.
  std::string code = "(index $.metadata.annotations \"" + std::string(kExitCodeAnnotation) + "\")";
  std::string end = exit_stage["spec"]["next"]["statusTemplate"].as<std::string>();
  ReplaceIn(end, "exitCode: 0", "exitCode: {{ " + code + " }}");
  ReplaceIn(end, "reason: Completed", "reason: {{ if eq " + code + " \"0\" }}Completed{{ else }}Error{{ end }}");
  ReplaceIn(end, "phase: Succeeded", "phase: {{ if eq " + code + " \"0\" }}Succeeded{{ else }}Failed{{ end }}");
  exit_stage["spec"]["next"]["statusTemplate"] = end;
  stages.push_back(exit_stage);

  if (options_.pod_end == PodEnd::kJobPodsSucceed) {
    YAML::Node complete = LoadStage("pod-complete.yaml");
    AddExpression(complete, AnnotationKey(kExitCodeAnnotation), "DoesNotExist");
    stages.push_back(complete);
  }
  stages.push_back(LoadStage("pod-delete.yaml"));

  YAML::Emitter out;
  for (const auto& stage : stages) out << YAML::BeginDoc << stage;
  std::string path = dir_ + "/kwok-stages.yaml";
  WriteTextFile(path, out.c_str());
  return path;
}

std::string ControlPlane::WriteOperatorConfig(const std::string& name, const std::string& api_version, int webhook_port,
                                              int probe_port, const std::string& extra) const {
  std::string path = dir_ + "/" + name + "-config.yaml";
  WriteTextFile(path, "apiVersion: " + api_version +
                          "\nkind: Configuration\nleaderElection:\n  leaderElect: false\n"
                          "internalCertManagement:\n  enable: false\nwebhook:\n  host: 127.0.0.1\n  port: " +
                          std::to_string(webhook_port) + "\n  certDir: " + dir_ +
                          "/webhook-certs\nmetrics:\n  bindAddress: \"0\"\nhealth:\n  healthProbeBindAddress: "
                          "127.0.0.1:" +
                          std::to_string(probe_port) + "\n" + extra);
  return path;
}

// The CRDs the operators watch beyond those ApiServer::EnsureCrds applies: KubeRay always runs its
// RayJob and RayService controllers, LWS its DisaggregatedSet controller.
void ControlPlane::ApplyOperatorCrds() {
  // KubeRay watches RayJobs too: without their CRD its cache never syncs, and two minutes after
  // it starts (controller-runtime's cache-sync timeout) the operator exits, so any binary that
  // runs longer loses it. The RayJob CRD is the project's pinned one.
  std::vector<std::string> files;
  if (options_.kuberay) {
    files = {PeerPath("manifests/kuberay/ray.io_rayservices.yaml"),
             PeerPath("manifests/kuberay/ray.io_raycronjobs.yaml"),
             std::string(TPUTRAIN_SOURCE_DIR) + "/data/crds/ray.io_rayjobs.yaml"};
  }
  if (options_.lws) files.push_back(PeerPath("manifests/lws/disaggregatedset.x-k8s.io_disaggregatedsets.yaml"));
  // Kueue's CRDs, and the ProvisioningRequest API GKE serves: Kueue sets up its provisioning
  // admission check only when that API is there as it starts.
  if (options_.kueue) {
    for (const auto& file : fs::directory_iterator(PeerPath("manifests/kueue"))) {
      std::string name = file.path().filename().string();
      if (name.starts_with("kueue.x-k8s.io_") || name.starts_with("autoscaling.x-k8s.io_")) {
        files.push_back(file.path().string());
      }
    }
  }
  for (const auto& file : files) {
    auto objects = k8s::ParseManifests(ReadTextFile(file), file);
    if (!objects) throw std::runtime_error(objects.error().message);
    for (const auto& crd : *objects) {
      auto created =
          server_.admin().Send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd.json.dump());
      if (!created || (!created->ok() && created->status != 409)) {
        throw std::runtime_error("creating " + file +
                                 " failed: " + (created ? created->body : created.error().message));
      }
    }
  }
  for (const auto& file : files) {
    std::string name = k8s::ParseManifests(ReadTextFile(file), file)->front().name;
    bool established = WaitFor(
        [&] {
          auto crd = server_.admin().GetJson("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + name, "");
          if (!crd) return false;
          for (const auto& condition : (*crd)["status"].value("conditions", json::array())) {
            if (condition.value("type", "") == "Established" && condition.value("status", "") == "True") return true;
          }
          return false;
        },
        std::chrono::seconds(60));
    if (!established) throw std::runtime_error("CRD " + name + " was not Established");
  }
}

// The operator's webhook configurations as its release makes them (its manifests plus the
// kustomize patches that add the pod objectSelector), but called by URL on loopback with the
// fixture's CA, and named after the operator (both ship `mutating-webhook-configuration`).
std::vector<std::string> ControlPlane::RegisterWebhooks(const std::string& name, int port) {
  std::vector<std::string> paths;
  std::string base = "manifests/" + name + "/";
  auto documents = k8s::ParseManifests(ReadTextFile(PeerPath(base + "manifests.yaml")), base + "manifests.yaml");
  if (!documents) throw std::runtime_error(documents.error().message);
  for (auto config : *documents) {
    json& body = config.json;
    bool mutating = config.kind == "MutatingWebhookConfiguration";
    if (name == "kueue") {
      ApplyNamespaceSelectors(body, YAML::LoadFile(PeerPath(base + "kustomization.yaml")));
    } else {
      ApplyWebhookPatches(
          name, body, YAML::LoadFile(PeerPath(base + (mutating ? "mutating-patch.yaml" : "validating-patch.yaml"))));
    }
    for (auto& webhook : body["webhooks"]) {
      std::string hook_path = webhook["clientConfig"]["service"].value("path", "/");
      paths.push_back(hook_path);
      webhook["clientConfig"] = {{"url", "https://127.0.0.1:" + std::to_string(port) + hook_path},
                                 {"caBundle", core::EncodeBase64(server_.ca_pem())}};
    }
    body["metadata"]["name"] = name + "-" + body["metadata"].value("name", "");
    std::string collection = mutating ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations";
    auto created = server_.admin().Send("POST", "/apis/admissionregistration.k8s.io/v1/" + collection, body.dump());
    if (!created || (!created->ok() && created->status != 409)) {
      throw std::runtime_error("registering " + name +
                               "'s webhooks failed: " + (created ? created->body : created.error().message));
    }
  }
  return paths;
}

// Ready: the operators answer their /readyz (the webhook servers listen), the controller manager
// has run its service-account controller, and nothing has exited.
void ControlPlane::WaitUp() {
  http::CurlTransport transport;
  http::CurlOptions trusting_fixture;
  trusting_fixture.ca_pem = server_.ca_pem();
  http::CurlTransport webhooks(trusting_fixture);
  for (auto& peer : peers_) {
    if (peer.probe_port == 0) continue;
    bool ready = WaitFor(
        [&] {
          if (!peer.process->running()) return true;
          http::Request request;
          request.url = "http://127.0.0.1:" + std::to_string(peer.probe_port) + "/readyz";
          auto response = transport.Send(request);
          return response && response->status == 200;
        },
        std::chrono::seconds(90));
    // controller-runtime's /readyz answers before its webhook server listens (a ping): on a busy
    // machine the first create would then meet "connection refused" from the API server.
    if (ready && peer.webhook_port != 0) {
      ready =
          WaitFor([&] { return !peer.process->running() || Listening(peer.webhook_port); }, std::chrono::seconds(90));
    }
    // And a listening webhook server may not have its handlers yet: JobSet's answered 404 to the
    // API server's first call ("failed calling webhook mjobset.kb.io: the server could not find
    // the requested resource"). Each path the configurations call answers something else first.
    for (const auto& path : peer.webhook_paths) {
      if (!ready) break;
      ready = WaitFor(
          [&] {
            if (!peer.process->running()) return true;
            http::Request request;
            request.method = "POST";
            request.url = "https://127.0.0.1:" + std::to_string(peer.webhook_port) + path;
            request.headers = {{"Content-Type", "application/json"}};
            request.body = "{}";
            auto response = webhooks.Send(request);
            return response && response->status != 404;
          },
          std::chrono::seconds(90));
    }
    if (!ready || !peer.process->running()) {
      throw std::runtime_error(peer.name + " did not become ready:\n" + peer.process->ReadErr().substr(0, 6000) +
                               peer.process->ReadOut().substr(0, 6000));
    }
  }
  bool accounts = WaitFor(
      [&] {
        auto response = server_.admin().Send("GET", "/api/v1/namespaces/kube-system/serviceaccounts/default");
        return response && response->status == 200;
      },
      std::chrono::seconds(60));
  for (auto& peer : peers_) {
    if (!peer.process->running()) {
      throw std::runtime_error(peer.name + " exited:\n" + peer.process->ReadErr().substr(0, 6000));
    }
  }
  if (!accounts) throw std::runtime_error("kube-controller-manager made no ServiceAccount:\n" + Logs());
}

void ControlPlane::ServePodAt(const std::string& ns, const std::string& pod, const std::string& ip) {
  Annotate(ns, pod, kPodIpAnnotation, ip);
}

void ControlPlane::EndPod(const std::string& ns, const std::string& pod, int exit_code) {
  Annotate(ns, pod, kExitCodeAnnotation, std::to_string(exit_code));
}

void ControlPlane::Annotate(const std::string& ns, const std::string& pod, const std::string& key,
                            const std::string& value) {
  auto patched = server_.admin().Send("PATCH", "/api/v1/namespaces/" + ns + "/pods/" + pod,
                                      json{{"metadata", {{"annotations", {{key, value}}}}}}.dump(),
                                      "application/merge-patch+json");
  if (!patched || !patched->ok()) {
    throw std::runtime_error("annotating pod " + ns + "/" + pod +
                             " failed: " + (patched ? patched->body : patched.error().message));
  }
}

std::string ControlPlane::WaitScheduledPod(const std::string& ns, const std::string& label_selector) {
  std::string name;
  // Minutes, not seconds: on a loaded machine the operator, then the scheduler, each take their
  // time. A controller that has exited will never make the pod: that is said at once.
  WaitFor(
      [&] {
        if (ExitedPeer()) return true;
        auto pods = server_.admin().GetJson(
            "/api/v1/namespaces/" + ns + "/pods?labelSelector=" + http::UrlEncode(label_selector), "");
        if (!pods) return false;
        for (const auto& pod : (*pods)["items"]) {
          if (!pod["spec"].value("nodeName", "").empty()) {
            name = pod["metadata"]["name"];
            return true;
          }
        }
        return false;
      },
      std::chrono::minutes(5));
  if (const Peer* exited = ExitedPeer()) {
    // Its error lines, not the tail of its stack trace.
    std::istringstream err(exited->process->ReadErr());
    std::string said;
    for (std::string line; std::getline(err, line);) {
      if (line.find("rror") != std::string::npos || line.find("panic") != std::string::npos) said += line + "\n";
    }
    if (said.size() > 4000) said = "..." + said.substr(said.size() - 4000);
    throw std::runtime_error(exited->name + " exited while pod " + label_selector + " in " + ns +
                             " waited to be scheduled; it said:\n" + said);
  }
  if (name.empty()) throw std::runtime_error("no pod " + label_selector + " in " + ns + " was scheduled:\n" + Logs());
  return name;
}

const ControlPlane::Peer* ControlPlane::ExitedPeer() const {
  for (const auto& peer : peers_) {
    if (!peer.process->running()) return &peer;
  }
  return nullptr;
}

std::string ControlPlane::Logs() const {
  std::string out;
  for (const auto& peer : peers_) {
    std::string err = peer.process->ReadErr();
    if (err.size() > 3000) err = "..." + err.substr(err.size() - 3000);
    out += "--- " + peer.name + "\n" + err + "\n";
  }
  return out;
}

}  // namespace tputrain::testing
