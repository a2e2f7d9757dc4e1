// Custom resources checked against CRD schemas: each rule of the structural subset on a small
// inline schema, then the project's own CRDs (data/crds) with the built-in templates rendered.
#include <fstream>
#include <iterator>
#include <map>

#include <catch2/catch.hpp>

#include "schema_validation.h"
#include "template_values.h"
#include "tputrain/k8s/manifest.h"
#include "tputrain/render/render.h"

namespace tputrain::k8s {
namespace {

using Json = nlohmann::json;

const std::string kSource = TPUTRAIN_SOURCE_DIR;

std::vector<std::string> Lines(const Json& object, const Json& schema) {
  std::vector<std::string> lines;
  for (const auto& error : ValidateAgainstSchema(object, schema)) lines.push_back(error.Line());
  return lines;
}

using Strings = std::vector<std::string>;

// A cut-down RayCluster schema with one of each rule.
const Json& Schema() {
  static const Json schema = Json::parse(R"({
    "type": "object",
    "properties": {
      "apiVersion": {"type": "string"},
      "kind": {"type": "string"},
      "metadata": {"type": "object"},
      "spec": {
        "type": "object",
        "required": ["headGroupSpec"],
        "properties": {
          "rayVersion": {"type": "string", "enum": ["2.9.0", "2.10.0"]},
          "suspend": {"type": "boolean"},
          "ratio": {"type": "number"},
          "headGroupSpec": {
            "type": "object",
            "required": ["template"],
            "properties": {
              "rayStartParams": {"type": "object", "additionalProperties": {"type": "string"}},
              "serviceType": {"type": "string", "default": "ClusterIP"},
              "template": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                           "properties": {"spec": {"type": "object", "properties": {"hostNetwork": {"type": "boolean"}}}}}
            }
          },
          "workerGroupSpecs": {
            "type": "array",
            "items": {
              "type": "object",
              "required": ["groupName", "minReplicas"],
              "properties": {
                "groupName": {"type": "string"},
                "replicas": {"type": "integer", "nullable": true},
                "minReplicas": {"type": "integer", "default": 0},
                "port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]}
              }
            }
          },
          "labels": {"type": "object", "additionalProperties": true},
          "strict": {"type": "object", "additionalProperties": false},
          "anything": {"x-kubernetes-preserve-unknown-fields": true},
          "job": {"type": "object", "x-kubernetes-embedded-resource": true,
                  "properties": {"spec": {"type": "object", "properties": {"parallelism": {"type": "integer"}}}}}
        }
      }
    }
  })");
  return schema;
}

Json Valid() {
  return Json::parse(R"({
    "apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "r", "labels": {"a": "b"}},
    "spec": {
      "rayVersion": "2.9.0",
      "headGroupSpec": {"rayStartParams": {"num-cpus": "1"}, "template": {"spec": {"hostNetwork": true}}},
      "workerGroupSpecs": [{"groupName": "w", "replicas": 2, "port": 8080}, {"groupName": "x", "port": "http"}]
    }
  })");
}

TEST_CASE("an object that fits its schema gives no errors", "[unit]") { CHECK(Lines(Valid(), Schema()).empty()); }

TEST_CASE("a wrong type names the field, the type expected and the value found", "[unit]") {
  auto object = Valid();
  object["spec"]["workerGroupSpecs"][0]["replicas"] = "two";
  CHECK(Lines(object, Schema()) == Strings{"spec.workerGroupSpecs[0].replicas: expected integer, got string \"two\""});

  object = Valid();
  object["spec"]["suspend"] = "yes";
  object["spec"]["headGroupSpec"]["rayStartParams"]["num-cpus"] = 1;
  object["spec"]["ratio"] = 0.5;  // a number, fine
  CHECK(Lines(object, Schema()) ==
        Strings{"spec.headGroupSpec.rayStartParams[num-cpus]: expected string, got integer 1",
                "spec.suspend: expected boolean, got string \"yes\""});
  object = Valid();
  object["spec"]["headGroupSpec"] = Json::array();
  CHECK(Lines(object, Schema()) == Strings{"spec.headGroupSpec: expected object, got array"});
}

TEST_CASE("integers: a float with no fraction passes, as the API server reads it", "[unit]") {
  auto object = Valid();
  object["spec"]["workerGroupSpecs"][0]["replicas"] = 2.0;
  CHECK(Lines(object, Schema()).empty());
  object["spec"]["workerGroupSpecs"][0]["replicas"] = 2.5;
  CHECK(Lines(object, Schema()) == Strings{"spec.workerGroupSpecs[0].replicas: expected integer, got number 2.5"});
}

TEST_CASE("an unknown field is one line naming it", "[unit]") {
  auto object = Valid();
  object["spec"]["headGroupSpec"]["rayStartParam"] = Json::object();
  CHECK(Lines(object, Schema()) == Strings{"spec.headGroupSpec.rayStartParam: unknown field"});
  object = Valid();
  object["status2"] = 1;
  CHECK(Lines(object, Schema()) == Strings{"status2: unknown field"});
}

TEST_CASE("enum lists the values allowed", "[unit]") {
  auto object = Valid();
  object["spec"]["rayVersion"] = "3.0";
  CHECK(Lines(object, Schema()) == Strings{"spec.rayVersion: expected one of [\"2.9.0\", \"2.10.0\"], got \"3.0\""});
}

TEST_CASE("a required field is missing unless its schema has a default", "[unit]") {
  auto object = Valid();
  object["spec"]["headGroupSpec"].erase("template");
  object["spec"]["workerGroupSpecs"][1].erase("groupName");
  // minReplicas is required too, but defaults to 0 on the server, so its absence is fine.
  CHECK(Lines(object, Schema()) == Strings{"spec.headGroupSpec: required field \"template\" missing",
                                           "spec.workerGroupSpecs[1]: required field \"groupName\" missing"});
  object = Valid();
  object.erase("spec");
  CHECK(Lines(object, Schema()).empty());  // spec itself is not required by this schema
  object["spec"] = Json::object();
  CHECK(Lines(object, Schema()) == Strings{"spec: required field \"headGroupSpec\" missing"});
}

TEST_CASE("defaults are applied as the server does: nested, and in place of a null", "[unit]") {
  const Json schema = Json::parse(R"({"type": "object", "properties": {
    "a": {"type": "object", "default": {}, "properties": {"b": {"type": "integer", "default": 3}}},
    "c": {"type": "string", "default": "x"},
    "d": {"type": "string", "nullable": true, "default": "y"},
    "list": {"type": "array", "items": {"type": "object", "properties": {"e": {"type": "boolean", "default": true}}}},
    "map": {"type": "object", "additionalProperties": {"type": "object", "properties": {"f": {"type": "integer", "default": 1}}}}
  }})");
  Json object = Json::parse(R"({"c": null, "d": null, "list": [{}, {"e": false}], "map": {"k": {}}})");
  ApplySchemaDefaults(object, schema);
  CHECK(object == Json::parse(R"({"a": {"b": 3}, "c": "x", "d": null, "list": [{"e": true}, {"e": false}],
                                  "map": {"k": {"f": 1}}})"));
  CHECK(ValidateAgainstSchema(Json::parse(R"({"c": null})"), schema).empty());
}

TEST_CASE("nullable admits null; elsewhere a null field counts as absent", "[unit]") {
  auto object = Valid();
  object["spec"]["workerGroupSpecs"][0]["replicas"] = nullptr;  // nullable
  object["spec"]["suspend"] = nullptr;                          // pruned, as the server does
  CHECK(Lines(object, Schema()).empty());
  object["spec"]["headGroupSpec"]["template"] = nullptr;
  CHECK(Lines(object, Schema()) == Strings{"spec.headGroupSpec: required field \"template\" missing"});
  object = Valid();
  object["spec"]["workerGroupSpecs"][1] = nullptr;
  CHECK(Lines(object, Schema()) == Strings{"spec.workerGroupSpecs[1]: expected object, got null"});
}

TEST_CASE("additionalProperties: a schema for each value, true for anything, false for nothing", "[unit]") {
  auto object = Valid();
  object["spec"]["labels"] = {{"any", {{"thing", 1}}}};
  object["spec"]["strict"] = Json::object();
  CHECK(Lines(object, Schema()).empty());
  object["spec"]["strict"]["x"] = 1;
  object["spec"]["headGroupSpec"]["rayStartParams"]["block"] = true;
  CHECK(Lines(object, Schema()) ==
        Strings{"spec.headGroupSpec.rayStartParams[block]: expected string, got boolean true",
                "spec.strict.x: unknown field"});
}

TEST_CASE("x-kubernetes-preserve-unknown-fields keeps unknown fields at its node, not in listed ones", "[unit]") {
  auto object = Valid();
  object["spec"]["headGroupSpec"]["template"]["metadata"] = {{"anything", {{"goes", true}}}};
  object["spec"]["anything"] = {{"really", Json::array({1, "two"})}};
  CHECK(Lines(object, Schema()).empty());
  object["spec"]["headGroupSpec"]["template"]["spec"]["hostNetwork"] = "yes";
  object["spec"]["headGroupSpec"]["template"]["spec"]["extra"] = 1;
  CHECK(Lines(object, Schema()) ==
        Strings{"spec.headGroupSpec.template.spec.extra: unknown field",
                "spec.headGroupSpec.template.spec.hostNetwork: expected boolean, got string \"yes\""});
}

TEST_CASE("x-kubernetes-int-or-string takes an integer or a string, nothing else", "[unit]") {
  auto object = Valid();
  object["spec"]["workerGroupSpecs"][0]["port"] = true;
  object["spec"]["workerGroupSpecs"][1]["port"] = Json::object();
  CHECK(Lines(object, Schema()) ==
        Strings{"spec.workerGroupSpecs[0].port: expected integer or string, got boolean true",
                "spec.workerGroupSpecs[1].port: expected integer or string, got object"});
}

TEST_CASE("an embedded resource may carry apiVersion, kind and metadata", "[unit]") {
  auto object = Valid();
  object["spec"]["job"] = Json::parse(R"({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
                                          "spec": {"parallelism": 2}})");
  CHECK(Lines(object, Schema()).empty());
  object["spec"]["job"]["metadata"] = "j";
  object["spec"]["job"]["spec"]["parallelism"] = "2";
  CHECK(Lines(object, Schema()) == Strings{"spec.job.metadata: expected object, got string \"j\"",
                                           "spec.job.spec.parallelism: expected integer, got string \"2\""});
}

TEST_CASE("the root's metadata is only checked to be an object", "[unit]") {
  auto object = Valid();
  object["metadata"]["finalizers"] = Json::array({"x"});  // ObjectMeta is the server's business
  CHECK(Lines(object, Schema()).empty());
  object["metadata"] = Json::array();
  CHECK(Lines(object, Schema()) == Strings{"metadata: expected object, got array"});
}

TEST_CASE("a malformed schema or a strange value never throws", "[unit]") {
  const Json schema = Json::parse(R"({"type": "object", "required": "spec", "properties": {
    "a": {"type": 7, "enum": 5, "items": [], "properties": []},
    "b": {"type": "integer", "enum": []},
    "c": "not a schema"}})");
  Json object = {{"a", {{"x", 1}}}, {"b", 1}, {"c", 1}, {"d", std::string("\xff\xfe")}};
  std::vector<FieldError> errors;
  REQUIRE_NOTHROW(errors = ValidateAgainstSchema(object, schema));
  REQUIRE(errors.size() == 1);  // what the broken parts say is ignored; d is still unknown
  CHECK(errors[0].Line() == "d: unknown field");
  CHECK(ValidateAgainstSchema("text", schema)[0].Line() == "expected object, got string \"text\"");
  CHECK_NOTHROW(ValidateAgainstSchema(object, Json()));
}

// ---- the project's own CRDs ----

const Json& Crd(const std::string& file) {
  static std::map<std::string, Json> loaded;
  auto it = loaded.find(file);
  if (it != loaded.end()) return it->second;
  auto objects = ParseManifests(
      [&] {
        std::ifstream in(kSource + "/data/crds/" + file);
        return std::string(std::istreambuf_iterator<char>(in), {});
      }(),
      file);
  REQUIRE(objects);
  REQUIRE(objects->size() == 1);
  return loaded.emplace(file, (*objects)[0].json).first->second;
}

const Json& SchemaOf(const std::string& crd_file, const std::string& version) {
  const Json* schema = SchemaForVersion(Crd(crd_file), version);
  REQUIRE(schema != nullptr);
  return *schema;
}

std::vector<Object> RenderedObjects(const std::string& template_name) {
  render::RenderRequest request;
  request.slice_values = workflow::SliceTemplateValues;
  request.template_name = template_name;
  request.template_dirs = {kSource + "/templates"};
  request.values_files = {kSource + "/tests/render/seed-values/" + template_name + ".yaml"};
  auto rendered = render::RenderTemplate(request);
  INFO(template_name << ": " << (rendered ? "" : rendered.error().message));
  REQUIRE(rendered);
  std::vector<Object> objects;
  for (const auto& file : rendered->files) {
    if (!file.yaml) continue;
    auto parsed = ParseManifests(file.text, file.name);
    REQUIRE(parsed);
    objects.insert(objects.end(), parsed->begin(), parsed->end());
  }
  return objects;
}

const std::map<std::string, std::string> kCrdFiles = {
    {"RayCluster", "ray.io_rayclusters.yaml"},
    {"LeaderWorkerSet", "leaderworkerset.x-k8s.io_leaderworkersets.yaml"},
    {"JobSet", "jobset.x-k8s.io_jobsets.yaml"}};

TEST_CASE("SchemaForVersion picks the version's schema from a CRD", "[unit]") {
  const Json& crd = Crd("ray.io_rayclusters.yaml");
  const Json* v1 = SchemaForVersion(crd, "v1");
  const Json* v1alpha1 = SchemaForVersion(crd, "v1alpha1");
  REQUIRE(v1 != nullptr);
  REQUIRE(v1alpha1 != nullptr);
  CHECK(v1 != v1alpha1);
  CHECK((*v1)["properties"]["spec"]["properties"].contains("upgradeStrategy"));
  CHECK(SchemaForVersion(crd, "v2") == nullptr);
  CHECK(SchemaForVersion(Json::object(), "v1") == nullptr);
}

TEST_CASE("every custom resource of the built-in templates fits the project's CRDs", "[unit]") {
  int checked = 0;
  for (const auto* name : {"raycluster-maxtext", "raycluster-cpu", "jetstream-pathways-405b",
                           "jetstream-pathways-disagg-70b", "saxml", "vllm-multihost"}) {
    for (const auto& object : RenderedObjects(name)) {
      auto crd = kCrdFiles.find(object.kind);
      if (crd == kCrdFiles.end()) continue;
      std::string version = object.api_version.substr(object.api_version.find('/') + 1);
      INFO(name << ": " << object.Describe() << " (" << object.api_version << ")");
      CHECK(Lines(object.json, SchemaOf(crd->second, version)) == Strings{});
      ++checked;
    }
  }
  // RayCluster ×2 (MaxText, CPU smoke), LeaderWorkerSet ×3 (405B, disaggregated 70B, vLLM), JobSet ×1.
  CHECK(checked == 6);
}

TEST_CASE("a rendered RayCluster with a wrong type or an unknown field gives one clear line", "[unit]") {
  auto objects = RenderedObjects("raycluster-maxtext");
  REQUIRE(objects.size() == 1);
  const Json& schema = SchemaOf("ray.io_rayclusters.yaml", "v1");
  REQUIRE(Lines(objects[0].json, schema).empty());

  Json wrong_type = objects[0].json;
  wrong_type["spec"]["workerGroupSpecs"][0]["replicas"] = "two";
  CHECK(Lines(wrong_type, schema) ==
        Strings{"spec.workerGroupSpecs[0].replicas: expected integer, got string \"two\""});

  Json unknown = objects[0].json;
  unknown["spec"]["headGroupSpec"]["rayStartParam"] = Json::object();
  CHECK(Lines(unknown, schema) == Strings{"spec.headGroupSpec.rayStartParam: unknown field"});

  Json missing = objects[0].json;
  missing["spec"]["headGroupSpec"].erase("template");
  missing["spec"]["workerGroupSpecs"][0].erase("minReplicas");  // defaulted by the CRD
  CHECK(Lines(missing, schema) == Strings{"spec.headGroupSpec: required field \"template\" missing"});

  Json bad_enum = objects[0].json;
  bad_enum["spec"]["upgradeStrategy"] = {{"type", "Rolling"}};
  CHECK(Lines(bad_enum, schema) ==
        Strings{"spec.upgradeStrategy.type: expected one of [\"Recreate\", \"None\"], got \"Rolling\""});
}

}  // namespace
}  // namespace tputrain::k8s
