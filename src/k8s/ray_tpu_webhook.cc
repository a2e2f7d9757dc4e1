#include "tputrain/k8s/ray_tpu_webhook.h"

#include <algorithm>

#include "tputrain/k8s/json_fields.h"

namespace tputrain::k8s {
namespace {

constexpr std::string_view kNameLabel = "app.kubernetes.io/name";
constexpr std::string_view kKubeRay = "kuberay";

bool SelectsKubeRayPods(const nlohmann::json& selector) {
  if (StringAt(ObjectAt(selector, "matchLabels"), kNameLabel) == kKubeRay) return true;
  for (const auto& expression : ArrayAt(selector, "matchExpressions")) {
    if (StringAt(expression, "key") != kNameLabel || StringAt(expression, "operator") != "In") continue;
    const auto& values = ArrayAt(expression, "values");
    if (std::any_of(values.begin(), values.end(), [](const nlohmann::json& value) {
          return value.is_string() && value.get<std::string>() == kKubeRay;
        })) {
      return true;
    }
  }
  return false;
}

bool MutatesPods(const nlohmann::json& webhook) {
  for (const auto& rule : ArrayAt(webhook, "rules")) {
    for (const auto& resource : ArrayAt(rule, "resources")) {
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
  for (const auto& configuration : ArrayAt(*list, "items")) {
    for (const auto& webhook : ArrayAt(configuration, "webhooks")) {
      if (MutatesPods(webhook) && SelectsKubeRayPods(ObjectAt(webhook, "objectSelector"))) {
        found.presence = RayTpuWebhook::Presence::kPresent;
        found.configuration = StringAt(ObjectAt(configuration, "metadata"), "name");
        return found;
      }
    }
  }
  return found;
}

}  // namespace tputrain::k8s
