#include "tputrain/k8s/json_fields.h"

#include <catch2/catch.hpp>

#include "tputrain/k8s/readiness.h"

namespace tputrain::k8s {
namespace {

TEST_CASE("fields that are null, absent or of another type read as the fallback, never throw") {
  // An events.k8s.io Event read as core/v1: Go's zero times are null.
  const auto event = nlohmann::json::parse(R"({
    "metadata": {"name": "p.1", "creationTimestamp": "2026-11-22T10:00:00Z"},
    "lastTimestamp": null, "firstTimestamp": null, "count": null, "eventTime": "2026-11-22T10:00:00.250000Z",
    "series": null, "related": [], "reason": "FailedScheduling"})");
  CHECK(StringAt(event, "lastTimestamp").empty());
  CHECK(StringAt(event, "eventTime") == "2026-11-22T10:00:00.250000Z");
  CHECK(StringAt(event, "absent").empty());
  CHECK(StringAt(event, "related").empty());
  CHECK(ObjectAt(event, "series").empty());
  CHECK(ObjectAt(event, "series").is_object());
  CHECK(ArrayAt(event, "series").is_array());
  CHECK(IntAt(event, "count", 7) == 7);
  CHECK(BoolAt(event, "reason", true));
  CHECK(StringAt(ObjectAt(event, "metadata"), "name") == "p.1");
  CHECK(StringAt(nlohmann::json(), "x").empty());
  CHECK(StringAt(nlohmann::json::array({1}), "x").empty());
}

TEST_CASE("readiness reads objects whose fields are null") {
  const auto cluster = nlohmann::json::parse(R"({
    "metadata": {"name": "ray", "generation": null, "creationTimestamp": null},
    "status": {"state": null, "observedGeneration": null, "conditions": null, "reason": null}})");
  auto verdict = ReadyVerdict("RayCluster", &cluster);
  CHECK(verdict.state == Verdict::State::kWaiting);
  CHECK(verdict.detail == "state is not set");
  const auto pod = nlohmann::json::parse(R"({"metadata": {"name": "p", "finalizers": null},
    "status": {"phase": null, "conditions": [{"type": null, "status": null}]}})");
  CHECK(ReadyVerdict("Pod", &pod).detail == "pod Pending, not Ready");
  CHECK(GoneVerdict(&pod).detail == "still present");
  const auto deployment = nlohmann::json::parse(R"({"metadata": {"name": "d"},
    "spec": {"replicas": null, "selector": {"matchLabels": {"app": "d", "odd": null}}}, "status": null})");
  CHECK(ReadyVerdict("Deployment", &deployment).detail == "0/1 replicas available");
  CHECK(PodSelectorFor("Deployment", deployment) == "app=d");
}

}  // namespace
}  // namespace tputrain::k8s
