// Server-side apply against a real kube-apiserver: create, no-op re-apply, dry run, the error
// shapes (422, the 500 typed-patch error, 403, 409), dependency order and unknown kinds.
#include <catch2/catch.hpp>

#include "k8s/k8s_test_util.h"

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

TEST_CASE("a missing required field (422) is one line naming the field", "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  std::string ns = server.NewNamespace("invalid");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  auto applied = ApplyYaml(*connection, "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata:\n  name: bad\nspec:\n"
                                        "  workerGroupSpecs: []\n");
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
    auto applied = ApplyYaml(*connection, RayClusterYaml("typed", ns, "{num-cpus: 1}"));
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
    auto applied = ApplyYaml(*connection, yaml);
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
  std::string yaml = "apiVersion: " + group + "/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 3\n---\n"
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

}  // namespace
}  // namespace tputrain::testing
