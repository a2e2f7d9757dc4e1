// Server-side apply against a real kube-apiserver: create, no-op re-apply, dry run, the error
// shapes (422, the 500 typed-patch error, 403, 409), dependency order and unknown kinds; custom
// resources checked against the installed CRD's schema before anything is sent.
#include <algorithm>
#include <functional>
#include <tuple>
#include <utility>

#include <catch2/catch.hpp>

#include "k8s/k8s_test_util.h"
#include "testing/fake_transport.h"
#include "tputrain/http/transport_chain.h"

namespace tputrain::testing {
namespace {

std::string ResourceVersion(k8s::Client& client, const std::string& path) {
  auto json = client.GetJson(path, "");
  REQUIRE(json);
  return (*json)["metadata"].value("resourceVersion", "");
}

TEST_CASE("apply creates in dependency order, re-apply changes nothing, dry run stores nothing", "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  std::string ns = server.NewNamespace("apply");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  // The RayCluster comes first in the file; the ConfigMap it would use must land first.
  std::string yaml = RayClusterYaml("ray", ns) +
                     "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  port: \"8265\"\n";

  auto first = ApplyYaml(*connection, yaml);
  REQUIRE(first);
  REQUIRE(first->size() == 2);
  CHECK((*first)[0].object.kind == "ConfigMap");
  CHECK((*first)[0].object.ns == ns);  // the context's namespace filled in
  CHECK((*first)[1].object.kind == "RayCluster");
  CHECK((*first)[0].action == k8s::ApplyAction::kCreated);
  CHECK((*first)[1].action == k8s::ApplyAction::kCreated);
  // The CRD's defaults come back (e.g. the head's service type is not set, but the object is).
  std::string cluster_path = "/apis/ray.io/v1/namespaces/" + ns + "/rayclusters/ray";
  std::string version = ResourceVersion(server.admin(), cluster_path);
  CHECK(version == (*first)[1].resource_version);

  auto again = ApplyYaml(*connection, yaml);
  REQUIRE(again);
  for (const auto& result : *again) CHECK(result.action == k8s::ApplyAction::kUnchanged);
  CHECK(ResourceVersion(server.admin(), cluster_path) == version);

  std::string changed = yaml;
  changed.replace(changed.find("\"8265\""), 6, "\"9999\"");
  k8s::ApplyOptions dry;
  dry.dry_run = true;
  auto dry_run = ApplyYaml(*connection, changed, dry);
  REQUIRE(dry_run);
  CHECK((*dry_run)[0].action == k8s::ApplyAction::kConfigured);
  CHECK((*dry_run)[0].live["data"]["port"] == "9999");  // what the server would store...
  auto stored = server.admin().GetJson("/api/v1/namespaces/" + ns + "/configmaps/settings", "");
  REQUIRE(stored);
  CHECK((*stored)["data"]["port"] == "8265");  // ...but did not
}

// A transport that lets a controller act between apply's read and its patch: `before_patch` runs
// once, just before the first server-side apply PATCH is sent.
class BeforePatch final : public http::Transport {
 public:
  BeforePatch(http::Transport& next, std::function<void()> before_patch)
      : next_(next), before_patch_(std::move(before_patch)) {}
  core::Result<http::Response> Send(const http::Request& request) override {
    if (request.method == "PATCH" && before_patch_) std::exchange(before_patch_, nullptr)();
    return next_.Send(request);
  }

 private:
  http::Transport& next_;
  std::function<void()> before_patch_;
};

TEST_CASE("re-apply is unchanged when a controller writes the status between apply's read and its patch",
          "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  std::string ns = server.NewNamespace("apply-status");
  REQUIRE(ApplyYaml(*ConnectWith(server.KubeconfigText(server.admin_token(), ns)), RayClusterYaml("ray", ns)));
  const std::string path = "/apis/ray.io/v1/namespaces/" + ns + "/rayclusters/ray";
  // What KubeRay does all the time while its pods come up: a status write, a new resourceVersion.
  auto operator_writes = [&] { WriteStatus(server.admin(), path, {{"state", "suspended"}}); };
  static core::Env env;
  static core::SystemClock clock;
  auto access = k8s::ClusterAccessFromKubeconfigText(server.KubeconfigText(server.admin_token(), ns), "", {});
  REQUIRE(access);
  auto connection = k8s::Connect(*access, {&env, &clock, {}}, [&](const http::CurlOptions& tls, http::Credential& c) {
    auto chain = std::make_unique<http::TransportChain>();
    chain->Push<http::CurlTransport>(tls);
    chain->Push<http::CredentialTransport>(chain->top(), c);
    chain->Push<BeforePatch>(chain->top(), operator_writes);
    return chain;
  });
  REQUIRE(connection);
  const std::string before = ResourceVersion(server.admin(), path);
  auto again = ApplyYaml(**connection, RayClusterYaml("ray", ns));
  REQUIRE(again);
  CHECK(ResourceVersion(server.admin(), path) != before);  // the status write happened in between
  CHECK((*again)[0].action == k8s::ApplyAction::kUnchanged);
  // A change of the spec in the same window is still a change.
  auto changed = ApplyYaml(**connection, RayClusterYaml("ray", ns, "{num-cpus: \"0\"}"));
  REQUIRE(changed);
  CHECK((*changed)[0].action == k8s::ApplyAction::kConfigured);
}

// The server's own error shapes (what is seen when the CRD may not be read, so the client-side
// check is skipped): the check is turned off to reach them.
k8s::ApplyOptions ServerChecksOnly() {
  k8s::ApplyOptions options;
  options.validate = false;
  return options;
}

TEST_CASE("the test API server admits as GKE does: a pod requesting google.com/tpu tolerates the TPU taint",
          "[integration]") {
  auto& server = ApiServer::Shared();
  std::string ns = server.NewNamespace("admission");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  REQUIRE(ApplyYaml(*connection,
                    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: tpu\nspec:\n  containers:\n  - name: main\n"
                    "    image: busybox\n    resources:\n      limits:\n        google.com/tpu: \"4\"\n"
                    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: cpu\nspec:\n  containers:\n"
                    "  - name: main\n    image: busybox\n"));
  auto tolerates_tpu = [&](const std::string& pod) {
    auto stored = server.admin().GetJson("/api/v1/namespaces/" + ns + "/pods/" + pod, "");
    REQUIRE(stored);
    for (const auto& toleration : (*stored)["spec"].value("tolerations", nlohmann::json::array())) {
      if (toleration.value("key", "") == "google.com/tpu" && toleration.value("operator", "") == "Exists" &&
          toleration.value("effect", "") == "NoSchedule") {
        return true;
      }
    }
    return false;
  };
  // ExtendedResourceToleration: added for the extended resource, and only for it.
  CHECK(tolerates_tpu("tpu"));
  CHECK_FALSE(tolerates_tpu("cpu"));
}

TEST_CASE("a missing required field (422) is one line naming the field", "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  std::string ns = server.NewNamespace("invalid");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  auto applied = ApplyYaml(*connection,
                           "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata:\n  name: bad\nspec:\n"
                           "  workerGroupSpecs: []\n",
                           ServerChecksOnly());
  REQUIRE_FALSE(applied);
  const auto& error = applied.error();
  INFO(error.message);
  CHECK(error.http_status == 422);
  CHECK(error.kind == core::ErrorKind::kInvalidArgument);
  CHECK(error.message.find('\n') == std::string::npos);
  CHECK(error.message.find("RayCluster " + ns + "/bad") != std::string::npos);
  CHECK(error.message.find("spec.headGroupSpec") != std::string::npos);
  CHECK(error.message.find("Required value") != std::string::npos);
}

TEST_CASE("a wrong type or unknown field (the 500 typed-patch error) is one clean line", "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  std::string ns = server.NewNamespace("typed");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));

  SECTION("wrong type") {
    auto applied = ApplyYaml(*connection, RayClusterYaml("typed", ns, "{num-cpus: 1}"), ServerChecksOnly());
    REQUIRE_FALSE(applied);
    INFO(applied.error().message);
    CHECK(applied.error().kind == core::ErrorKind::kInvalidArgument);
    CHECK(applied.error().reason == "TypedPatch");
    CHECK(applied.error().message.find('\n') == std::string::npos);
    CHECK(applied.error().message.find("rayStartParams") != std::string::npos);
    CHECK(applied.error().message.find("expected string") != std::string::npos);
    CHECK(applied.error().message.find("valueUnstructured") == std::string::npos);
  }
  SECTION("unknown field") {
    std::string yaml = RayClusterYaml("typed", ns);
    yaml.insert(yaml.find("  headGroupSpec:"), "  bogusField: 1\n");
    auto applied = ApplyYaml(*connection, yaml, ServerChecksOnly());
    REQUIRE_FALSE(applied);
    INFO(applied.error().message);
    CHECK(applied.error().reason == "TypedPatch");
    CHECK(applied.error().message.find('\n') == std::string::npos);
    CHECK(applied.error().message.find("bogusField") != std::string::npos);
  }
  // Nothing was stored.
  auto response = server.admin().Send("GET", "/apis/ray.io/v1/namespaces/" + ns + "/rayclusters/typed");
  REQUIRE(response);
  CHECK(response->status == 404);
}

TEST_CASE("a token without rights gets a 403 naming what it may not do", "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  std::string ns = server.NewNamespace("forbidden");
  auto connection = ConnectWith(server.KubeconfigText(server.nobody_token(), ns));
  auto applied = ApplyYaml(*connection, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n");
  REQUIRE_FALSE(applied);
  INFO(applied.error().message);
  CHECK(applied.error().http_status == 403);
  CHECK(applied.error().kind == core::ErrorKind::kPermissionDenied);
  CHECK(applied.error().message.find("forbidden") != std::string::npos);
  CHECK(applied.error().message.find(server.nobody_token()) == std::string::npos);
}

TEST_CASE("a conflict with another field manager names that manager", "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  std::string ns = server.NewNamespace("conflict");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  std::string ours = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\ndata:\n  mode: ours\n";
  REQUIRE(ApplyYaml(*connection, ours));
  k8s::ApplyOptions theirs;
  theirs.field_manager = "other-manager";
  theirs.force_conflicts = true;
  REQUIRE(ApplyYaml(*connection, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\ndata:\n  mode: theirs\n",
                    theirs));
  auto applied = ApplyYaml(*connection, ours);
  REQUIRE_FALSE(applied);
  INFO(applied.error().message);
  CHECK(applied.error().http_status == 409);
  CHECK(applied.error().message.find("\"other-manager\"") != std::string::npos);
  CHECK(applied.error().message.find(".data.mode") != std::string::npos);
  k8s::ApplyOptions force;
  force.force_conflicts = true;
  CHECK(ApplyYaml(*connection, ours, force));
}

TEST_CASE("an unknown kind names its operator and nothing is applied", "[integration]") {
  auto& server = ApiServer::Shared();
  std::string ns = server.NewNamespace("unknown");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  // RayJob's CRD is not installed by these tests.
  auto applied = ApplyYaml(*connection,
                           "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: before\n---\n"
                           "apiVersion: ray.io/v1\nkind: RayJob\nmetadata:\n  name: job\nspec: {}\n");
  REQUIRE_FALSE(applied);
  INFO(applied.error().message);
  CHECK(applied.error().message.find("RayJob") != std::string::npos);
  CHECK(applied.error().message.find("KubeRay") != std::string::npos);
  auto response = server.admin().Send("GET", "/api/v1/namespaces/" + ns + "/configmaps/before");
  REQUIRE(response);
  CHECK(response->status == 404);
}

TEST_CASE("a CRD in the same file is created and Established before its objects", "[integration]") {
  auto& server = ApiServer::Shared();
  std::string ns = server.NewNamespace("crd");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  std::string group = ns + ".tputrain.test";
  std::string yaml =
      "apiVersion: " + group +
      "/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 3\n---\n"
      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets." +
      group + "\nspec:\n  group: " + group +
      "\n  names: {kind: Widget, plural: widgets, singular: widget}\n  scope: Namespaced\n"
      "  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n"
      "      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n"
      "            type: object\n            properties:\n              size: {type: integer}\n";
  auto applied = ApplyYaml(*connection, yaml);
  REQUIRE(applied);
  REQUIRE(applied->size() == 2);
  CHECK((*applied)[0].object.kind == "CustomResourceDefinition");
  CHECK((*applied)[1].object.kind == "Widget");
  CHECK((*applied)[1].live["spec"]["size"] == 3);
}

// Every request but a GET that reached the server: what could have changed something.
std::vector<std::string> Writes(FakeTransport& transport) {
  std::vector<std::string> writes;
  for (const auto& request : transport.requests()) {
    if (request.method != "GET") writes.push_back(request.method + " " + request.url);
  }
  return writes;
}

// Requests with this method whose URL ends in `path`.
int Count(FakeTransport& transport, const std::string& method, const std::string& path) {
  const auto requests = transport.requests();
  return static_cast<int>(std::count_if(requests.begin(), requests.end(), [&](const http::Request& request) {
    return request.method == method && request.url.ends_with(path);
  }));
}

// A client of its own over the connection's transport, and so a CRD cache of its own.
struct RecordedClient {
  explicit RecordedClient(k8s::Connection& connection)
      : transport(*connection.transport),
        client(transport, connection.access.server, connection.access.default_namespace), discovery(client) {}

  core::Result<std::vector<k8s::ApplyResult>> Apply(const std::string& yaml, k8s::ApplyOptions options = {}) {
    RealTime time;
    return k8s::Apply(client, discovery, Parse(yaml), options, time.deps());
  }

  FakeTransport transport;  // records what reaches the server
  k8s::Client client;
  k8s::Discovery discovery;
};

int Status(k8s::Client& admin, const std::string& path) {
  auto response = admin.Send("GET", path);
  REQUIRE(response);
  return response->status;
}

TEST_CASE("a custom resource that does not fit its installed CRD is refused before anything is sent", "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  std::string ns = server.NewNamespace("schema");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  RecordedClient recorded(*connection);
  const std::string clusters = "/apis/ray.io/v1/namespaces/" + ns + "/rayclusters/";

  // One that fits goes through, checked against the same CRD.
  auto good = recorded.Apply(RayClusterYaml("good", ns));
  REQUIRE(good);
  std::string version = ResourceVersion(server.admin(), clusters + "good");
  auto writes_before = Writes(recorded.transport).size();
  CHECK(writes_before == 1);

  std::string unknown_field = RayClusterYaml("good", ns);
  unknown_field.insert(unknown_field.find("    rayStartParams:"), "    rayStartParam: {}\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {RayClusterYaml("bad", ns, "{num-cpus: 1}"),
       "RayCluster " + ns +
           "/bad: invalid manifest: spec.headGroupSpec.rayStartParams[num-cpus]: expected string, "
           "got integer 1"},
      {unknown_field, "RayCluster " + ns + "/good: invalid manifest: spec.headGroupSpec.rayStartParam: unknown field"}};
  // The ConfigMap would be applied first: it is not sent either.
  const std::string config_map = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: before\n---\n";
  for (const auto& [yaml, line] : cases) {
    for (bool dry_run : {false, true}) {
      k8s::ApplyOptions options;
      options.dry_run = dry_run;
      auto applied = recorded.Apply(config_map + yaml, options);
      REQUIRE_FALSE(applied);
      const auto& error = applied.error();
      CHECK(error.message == line);
      CHECK(error.reason == "SchemaValidation");
      CHECK(core::IsUsageError(error));  // bad input, never retried: exit 2
      CHECK(error.http_status == 0);
    }
  }
  CHECK(Writes(recorded.transport).size() == writes_before);  // no PATCH after the good one
  // The installed CRD was read once for all five applies.
  CHECK(Count(recorded.transport, "GET",
              "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/rayclusters.ray.io") == 1);
  CHECK(Status(server.admin(), clusters + "bad") == 404);
  CHECK(Status(server.admin(), "/api/v1/namespaces/" + ns + "/configmaps/before") == 404);
  CHECK(ResourceVersion(server.admin(), clusters + "good") == version);
}

TEST_CASE("tputrain apply -f - names each field that does not fit the CRD on one line and exits 2", "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  std::string ns = server.NewNamespace("schemacli");
  std::string kubeconfig = server.WriteKubeconfig("schemacli-" + ns, server.admin_token(), ns);
  auto run = [&](const std::string& yaml, std::vector<std::string> flags) {
    ProcessOptions options;
    options.argv = {TputrainBinary(), "apply", "-f", "-"};
    options.argv.insert(options.argv.end(), flags.begin(), flags.end());
    options.stdin_text = yaml;
    options.env = {{"KUBECONFIG", kubeconfig},
                   {"NO_COLOR", "1"},
                   {"XDG_STATE_HOME", kubeconfig + ".state"},
                   {"TPUTRAIN_RUN", std::nullopt}};
    return RunProcess(options, std::chrono::seconds(120));
  };
  std::string wrong_type =
      RayClusterYaml("typed", ns) + "  workerGroupSpecs:\n  - groupName: w\n    replicas: two\n    template: {}\n";
  std::string unknown_field = RayClusterYaml("unknown", ns);
  unknown_field.insert(unknown_field.find("    rayStartParams:"), "    rayStartParam: {}\n");
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {wrong_type, "typed", "spec.workerGroupSpecs[0].replicas: expected integer, got string \"two\""},
      {unknown_field, "unknown", "spec.headGroupSpec.rayStartParam: unknown field"}};
  for (const auto& [yaml, name, line] : cases) {
    auto plain = run(yaml, {});
    CHECK(plain.exit_code == 2);
    CHECK(plain.out.empty());
    CHECK(plain.err == "ERROR: RayCluster " + ns + "/" + name + ": invalid manifest: " + line + "\n");
    auto dry = run(yaml, {"--dry-run"});
    CHECK(dry.exit_code == 2);
    CHECK(dry.err == plain.err);
    CHECK(Status(server.admin(), "/apis/ray.io/v1/namespaces/" + ns + "/rayclusters/" + name) == 404);
  }
}

TEST_CASE("a CRD this user may not read leaves the check to the server", "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  std::string ns = server.NewNamespace("schema403");
  // test-nobody may apply RayClusters here, and still not read CustomResourceDefinitions.
  auto role = server.admin().Send(
      "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/roles",
      nlohmann::json{
          {"metadata", {{"name", "rayclusters"}}},
          {"rules",
           {{{"apiGroups", {"ray.io"}}, {"resources", {"rayclusters"}}, {"verbs", {"get", "create", "patch"}}}}}}
          .dump());
  REQUIRE(role);
  REQUIRE(role->ok());
  auto binding = server.admin().Send(
      "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/rolebindings",
      nlohmann::json{
          {"metadata", {{"name", "rayclusters"}}},
          {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "rayclusters"}}},
          {"subjects", {{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "User"}, {"name", "test-nobody"}}}}}
          .dump());
  REQUIRE(binding);
  REQUIRE(binding->ok());
  auto connection = ConnectWith(server.KubeconfigText(server.nobody_token(), ns));
  RecordedClient recorded(*connection);

  auto applied = recorded.Apply(RayClusterYaml("typed", ns, "{num-cpus: 1}"));
  REQUIRE_FALSE(applied);
  INFO(applied.error().message);
  CHECK(Count(recorded.transport, "GET",
              "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/rayclusters.ray.io") == 1);
  CHECK(Writes(recorded.transport).size() == 1);  // the PATCH went out...
  CHECK(applied.error().reason == "TypedPatch");  // ...and the server refused it
  CHECK(recorded.Apply(RayClusterYaml("fits", ns)));
}

std::string WidgetCrd(const std::string& group, const std::string& extra_properties) {
  return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets." + group +
         "\nspec:\n  group: " + group +
         "\n  names: {kind: Widget, plural: widgets, singular: widget}\n  scope: Namespaced\n"
         "  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n"
         "      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n"
         "            type: object\n            properties:\n              size: {type: integer}\n" +
         extra_properties;
}

TEST_CASE("objects of a CRD in the same file are checked once it is Established; a changed CRD is read again",
          "[integration]") {
  auto& server = ApiServer::Shared();
  std::string ns = server.NewNamespace("crdcheck");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  RecordedClient recorded(*connection);
  std::string group = ns + ".tputrain.test";
  std::string widget = "apiVersion: " + group + "/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n";
  std::string widget_path = "/apis/" + group + "/v1/namespaces/" + ns + "/widgets/w";

  auto first = recorded.Apply(widget + "  size: three\n---\n" + WidgetCrd(group, ""));
  REQUIRE_FALSE(first);
  CHECK(first.error().message ==
        "Widget " + ns + "/w: invalid manifest: spec.size: expected integer, got string \"three\"");
  CHECK(Status(server.admin(), "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets." + group) == 200);
  CHECK(Status(server.admin(), widget_path) == 404);

  // The CRD gains a field in the same file as the first Widget that uses it.
  auto second = recorded.Apply(widget + "  size: 3\n  color: red\n---\n" +
                               WidgetCrd(group, "              color: {type: string}\n"));
  INFO((second ? "" : second.error().message));
  REQUIRE(second);
  // Had the first CRD stayed cached, color would be an unknown field.
  CHECK((*second)[1].live["spec"]["color"] == "red");
}

}  // namespace
}  // namespace tputrain::testing
