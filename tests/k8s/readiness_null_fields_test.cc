#include <catch2/catch.hpp>

#include "tputrain/k8s/readiness.h"

namespace tputrain::k8s {
namespace {

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
