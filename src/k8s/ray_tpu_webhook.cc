#include "tputrain/k8s/ray_tpu_webhook.h"

#include <algorithm>

#include "tputrain/core/json_fields.h"

namespace tputrain::k8s {
namespace {

constexpr std::string_view kNameLabel = "app.kubernetes.io/name";
constexpr std::string_view kKubeRay = "kuberay";

bool SelectsKubeRayPods(const nlohmann::json& selector) {
  if (core::StringAt(core::ObjectAt(selector, "matchLabels"), kNameLabel) == kKubeRay) return true;
  for (const auto& expression : core::ArrayAt(selector, "matchExpressions")) {
    if (core::StringAt(expression, "key") != kNameLabel || core::StringAt(expression, "operator") != "In") continue;
    const auto& values = core::ArrayAt(expression, "values");
    if (std::any_of(values.begin(), values.end(), [](const nlohmann::json& value) {
          return value.is_string() && value.get<std::string>() == kKubeRay;
        })) {
      return true;
    }
  }
  return false;
}

bool MutatesPods(const nlohmann::json& webhook) {
  for (const auto& rule : core::ArrayAt(webhook, "rules")) {
    for (const auto& resource : core::ArrayAt(rule, "resources")) {
      if (resource == "pods" || resource == "*") return true;
    }
  }
  return false;
}

}  // namespace

RayTpuWebhook FindRayTpuWebhook(Client& client) {
  RayTpuWebhook found;
  auto list = client.GetJson("/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
                             "MutatingWebhookConfigurations");
  if (!list) {
    found.reason = list.error().message;
    return found;
  }
  found.presence = RayTpuWebhook::Presence::kAbsent;
  for (const auto& configuration : core::ArrayAt(*list, "items")) {
    for (const auto& webhook : core::ArrayAt(configuration, "webhooks")) {
      if (MutatesPods(webhook) && SelectsKubeRayPods(core::ObjectAt(webhook, "objectSelector"))) {
        found.presence = RayTpuWebhook::Presence::kPresent;
        found.configuration = core::StringAt(core::ObjectAt(configuration, "metadata"), "name");
        return found;
      }
    }
  }
  return found;
}

}  // namespace tputrain::k8s
