#include <catch2/catch.hpp>

#include "tputrain/k8s/manifest.h"

namespace tputrain::k8s {
namespace {

TEST_CASE("manifests are typed as the API server reads YAML, and ordered for apply", "[unit]") {
  auto objects = ParseManifests(
      "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: r}\nspec:\n  a: 8265\n  b: \"8265\"\n"
      "  c: true\n  d: yes\n  e: 1.5\n  f: ~\n  g: 0755\n  h: |\n    text\n  i: '1'\n---\n"
      "# only a comment\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n---\n"
      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: x}\n",
      "m.yaml");
  REQUIRE(objects);
  REQUIRE(objects->size() == 3);
  const auto& spec = (*objects)[0].json["spec"];
  CHECK(spec["a"] == 8265);
  CHECK(spec["b"] == "8265");
  CHECK(spec["c"] == true);
  CHECK(spec["d"] == true);
  CHECK(spec["e"] == 1.5);
  CHECK(spec["f"].is_null());
  CHECK(spec["g"] == 493);
  CHECK(spec["h"] == "text\n");
  CHECK(spec["i"] == "1");
  auto ordered = OrderForApply(*objects);
  CHECK(ordered[0].kind == "CustomResourceDefinition");
  CHECK(ordered[1].kind == "Namespace");
  CHECK(ordered[2].kind == "RayCluster");
}

TEST_CASE("manifest errors name the document and the field", "[unit]") {
  auto no_kind = ParseManifests("apiVersion: v1\nmetadata: {name: a}\n", "in.yaml");
  REQUIRE_FALSE(no_kind);
  CHECK(no_kind.error().message == "in.yaml (document 1): kind is required");
  auto no_name = ParseManifests("---\n---\napiVersion: v1\nkind: Pod\nmetadata: {}\n", "in.yaml");
  REQUIRE_FALSE(no_name);
  CHECK(no_name.error().message == "in.yaml (document 2): metadata.name is required (Pod)");
  auto bad = ParseManifests("a: [\n", "in.yaml");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("in.yaml: not valid YAML at line") == 0);
  CHECK_FALSE(ParseManifests("", "empty.yaml"));
}

}  // namespace
}  // namespace tputrain::k8s
