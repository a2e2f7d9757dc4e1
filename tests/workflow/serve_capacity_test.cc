// serve up --capacity: every engine's TPU pods select the pools of the mode by GKE's node labels
// (JetStream's LeaderWorkerSets, Saxml's JobSet, vLLM's Deployment and LeaderWorkerSet), the
// CPU-only pods (Pathways' head, Saxml's admin and HTTP front) are left as rendered, and a wait
// on flex-start pools says what it waits for.
#include <catch2/catch.hpp>

#include "saxml_render.h"
#include "serve_flow.h"
#include "template_values.h"
#include "tputrain/workflow/serve_vllm.h"

namespace tputrain::workflow {
namespace {

const std::string kTemplates = std::string(TPUTRAIN_SOURCE_DIR) + "/templates";
const std::map<std::string, std::string> kConfiguration = {
    {"PROJECT_ID", "p"}, {"BUCKET", "b"}, {"LOCATION", "us-east5"}};

// Every nodeSelector in `objects`, at any depth, split by whether it selects TPU nodes.
void Collect(const nlohmann::json& json, std::vector<nlohmann::json>& tpu, std::vector<nlohmann::json>& other) {
  if (json.is_object()) {
    for (const auto& [key, value] : json.items()) {
      if (key == "nodeSelector" && value.is_object()) {
        (value.contains("cloud.google.com/gke-tpu-accelerator") ? tpu : other).push_back(value);
      } else {
        Collect(value, tpu, other);
      }
    }
  } else if (json.is_array()) {
    for (const auto& value : json) Collect(value, tpu, other);
  }
}

struct Selectors {
  std::vector<nlohmann::json> tpu;
  std::vector<nlohmann::json> other;
};
Selectors SelectorsOf(const std::vector<k8s::Object>& objects) {
  Selectors selectors;
  for (const auto& object : objects) Collect(object.json, selectors.tpu, selectors.other);
  return selectors;
}

std::vector<k8s::Object> JetStreamObjects() {
  render::RenderRequest request;
  request.template_name = "jetstream-pathways-405b";
  request.template_dirs = {kTemplates};
  request.configuration = kConfiguration;
  request.slice_values = SliceTemplateValues;
  request.sets = {"TPU_TYPE=v6e-16"};
  auto rendered = serve_flow::RenderWorkload(request, {"LeaderWorkerSet"});
  REQUIRE(rendered);
  return rendered->objects;
}

std::vector<k8s::Object> SaxmlObjects() {
  auto rendered = RenderSaxml({"v6e-16", 2, false, {}, kConfiguration, {kTemplates}});
  REQUIRE(rendered);
  return rendered->objects;
}

void CheckSelected(const std::vector<k8s::Object>& objects, const std::string& label) {
  auto selectors = SelectorsOf(objects);
  REQUIRE_FALSE(selectors.tpu.empty());
  for (const auto& selector : selectors.tpu) {
    INFO(selector.dump());
    CHECK(selector.value(label, "") == "true");
  }
  for (const auto& selector : selectors.other) {
    CHECK_FALSE(selector.contains("cloud.google.com/gke-flex-start"));
    CHECK_FALSE(selector.contains("cloud.google.com/gke-spot"));
  }
}

TEST_CASE(
    "serve --capacity flex-start or spot: JetStream's and Saxml's TPU pods select the mode's pools, "
    "their CPU pods do not") {
  for (auto [mode, label] : {std::pair{CapacityMode::kFlexStart, "cloud.google.com/gke-flex-start"},
                             std::pair{CapacityMode::kSpot, "cloud.google.com/gke-spot"}}) {
    INFO(CapacityModeName(mode));
    auto jetstream = JetStreamObjects();
    REQUIRE(serve_flow::SelectCapacity(jetstream, mode, "jetstream-pathways-405b"));
    CheckSelected(jetstream, label);
    auto saxml = SaxmlObjects();
    REQUIRE(serve_flow::SelectCapacity(saxml, mode, "saxml"));
    CheckSelected(saxml, label);
    int deployments = 0;  // the admin server and the HTTP front stay on any CPU node
    for (const auto& object : saxml) {
      if (object.kind != "Deployment") continue;
      ++deployments;
      CHECK(object.json.dump().find("cloud.google.com/gke-") == std::string::npos);
    }
    CHECK(deployments == 2);
  }
  // On-demand and a reservation: as rendered.
  auto jetstream = JetStreamObjects();
  const auto before = SelectorsOf(jetstream).tpu;
  REQUIRE(serve_flow::SelectCapacity(jetstream, CapacityMode::kOnDemand, "jetstream-pathways-405b"));
  REQUIRE(serve_flow::SelectCapacity(jetstream, CapacityMode::kReservation, "jetstream-pathways-405b"));
  CHECK(SelectorsOf(jetstream).tpu == before);
}

TEST_CASE("serve --capacity: a template with no TPU pod is one usage line naming --capacity") {
  std::vector<k8s::Object> none = {k8s::Object{}};
  none[0].kind = "Service";
  none[0].json = {{"kind", "Service"}, {"spec", {{"selector", {{"app", "x"}}}}}};
  auto refused = serve_flow::SelectCapacity(none, CapacityMode::kFlexStart, "mine");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().kind == core::ErrorKind::kInvalidArgument);
  CHECK(
      refused.error().message ==
      "--capacity flex-start: template mine has no pods that select TPU nodes (cloud.google.com/gke-tpu-accelerator)");
}

TEST_CASE(
    "serve --engine vllm --capacity: single-host Deployment and multi-host LeaderWorkerSet select the pools; "
    "a capacity choice that does not hold is a usage error before anything is rendered") {
  for (const std::string tpu_type : {"v6e-8", "v6e-16"}) {
    INFO(tpu_type);
    VllmUpRequest request;
    request.plan = {"llama3-8b", tpu_type, {}, {}, {}, {kTemplates}};
    request.capacity.capacity = "flex-start";
    auto prepared = PrepareVllm(request);
    REQUIRE(prepared);
    CheckSelected(prepared->rendered.objects, "cloud.google.com/gke-flex-start");
    request.capacity = {};
    request.capacity.spot = true;
    prepared = PrepareVllm(request);
    REQUIRE(prepared);
    CheckSelected(prepared->rendered.objects, "cloud.google.com/gke-spot");
  }
  VllmUpRequest request;
  request.plan = {"llama3-8b", "v6e-8", {}, {}, {}, {kTemplates}};
  request.capacity.capacity = "reservation";  // without --reservation
  auto refused = PrepareVllm(request);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().kind == core::ErrorKind::kInvalidArgument);
  CHECK_THAT(refused.error().message, Catch::StartsWith("--"));
}

TEST_CASE("a wait on flex-start pools says it waits for capacity, and its timeout says there was none") {
  CHECK_THAT(PendingCapacityHint(CapacityMode::kFlexStart, "--timeout"), Catch::Contains("--timeout bounds the wait"));
  CHECK_THAT(NoCapacityNote(CapacityMode::kFlexStart), Catch::Contains("flex-start pools, which had no capacity"));
  CHECK(NoCapacityNote(CapacityMode::kSpot).empty());
}

}  // namespace
}  // namespace tputrain::workflow
