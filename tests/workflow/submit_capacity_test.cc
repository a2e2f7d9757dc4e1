// submit --capacity: the rendered RayCluster's TPU pods select the pools of that mode by GKE's node
// labels; the head (no TPU) and the on-demand default are left as rendered.
#include <catch2/catch.hpp>

#include "testing/fake_transport.h"
#include "tputrain/workflow/submit_cluster.h"

namespace tputrain::workflow {
namespace {

const std::string kTemplates = std::string(TPUTRAIN_SOURCE_DIR) + "/templates";

RayClusterRequest RequestFor(CapacityMode capacity) {
  RayClusterRequest request;
  request.template_dirs = {kTemplates};
  request.image = "us-docker.pkg.dev/p/r/maxtext:1";
  request.sets = {"KSA_NAME=ray-ksa"};
  request.configuration = {{"PROJECT_ID", "p"}, {"BUCKET", "b"}, {"LOCATION", "us-east5"}};
  request.capacity = capacity;
  return request;
}

std::vector<nlohmann::json> NodeSelectors(const RenderedRayCluster& rendered) {
  std::vector<nlohmann::json> selectors;
  for (const auto& object : rendered.objects) {
    if (object.kind != "RayCluster") continue;
    selectors.push_back(
        object.json["spec"]["headGroupSpec"]["template"]["spec"].value("nodeSelector", nlohmann::json()));
    for (const auto& group : object.json["spec"]["workerGroupSpecs"]) {
      selectors.push_back(group["template"]["spec"].value("nodeSelector", nlohmann::json()));
    }
  }
  return selectors;
}

TEST_CASE("submit --capacity flex-start or spot: every TPU worker selects the mode's pools, the head does not",
          "[unit]") {
  testing::FakeClock clock;
  auto job = BuildMaxTextJob({.model = "llama3-8b", .tpu_type = "v6e-16"}, clock);
  REQUIRE(job);
  for (auto [mode, label] : {std::pair{CapacityMode::kFlexStart, "cloud.google.com/gke-flex-start"},
                             std::pair{CapacityMode::kSpot, "cloud.google.com/gke-spot"}}) {
    auto rendered = RenderRayCluster(*job, RequestFor(mode));
    INFO((rendered ? "" : rendered.error().message));
    REQUIRE(rendered);
    auto selectors = NodeSelectors(*rendered);
    REQUIRE(selectors.size() >= 2);
    CHECK((selectors[0].is_null() || !selectors[0].contains(label)));  // the head runs on a CPU pool
    for (size_t i = 1; i < selectors.size(); ++i) {
      CHECK(selectors[i][label] == "true");
      CHECK(selectors[i]["cloud.google.com/gke-tpu-topology"] == "4x4");
    }
  }
  auto on_demand = RenderRayCluster(*job, RequestFor(CapacityMode::kOnDemand));
  REQUIRE(on_demand);
  for (const auto& selector : NodeSelectors(*on_demand)) {
    CHECK((selector.is_null() ||
           (!selector.contains("cloud.google.com/gke-flex-start") && !selector.contains("cloud.google.com/gke-spot"))));
  }
  CHECK_THAT(PendingCapacityHint(CapacityMode::kFlexStart, "--ready-timeout"),
             Catch::StartsWith("waiting for flex-start capacity") && Catch::Contains("--ready-timeout bounds"));
  CHECK(PendingCapacityHint(CapacityMode::kSpot, "--timeout").empty());
}

TEST_CASE("submit --capacity spot with a template that has no TPU pods is a usage error naming the flag", "[unit]") {
  testing::FakeClock clock;
  auto job = BuildMaxTextJob({.model = "maxtext-cpu-smoke"}, clock);
  REQUIRE(job);
  auto request = RequestFor(CapacityMode::kSpot);
  request.sets.clear();  // raycluster-cpu has no service account to name
  auto rendered = RenderRayCluster(*job, request);
  REQUIRE_FALSE(rendered);
  CHECK(rendered.error().kind == core::ErrorKind::kInvalidArgument);
  CHECK_THAT(rendered.error().message, Catch::StartsWith("--capacity spot: template raycluster-cpu"));
}

}  // namespace
}  // namespace tputrain::workflow
