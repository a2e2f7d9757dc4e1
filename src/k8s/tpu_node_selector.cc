#include "tputrain/k8s/tpu_node_selector.h"

namespace tputrain::k8s {
namespace {

constexpr const char* kTpuAcceleratorLabel = "cloud.google.com/gke-tpu-accelerator";

// Rendered objects are bounded at parse time (depth and size), so the recursion is too.
int AddWhereTpu(nlohmann::json& node, const std::map<std::string, std::string>& labels) {
  int changed = 0;
  if (node.is_array()) {
    for (auto& item : node) changed += AddWhereTpu(item, labels);
    return changed;
  }
  if (!node.is_object()) return 0;
  for (auto& [key, value] : node.items()) {
    if (key == "nodeSelector" && value.is_object() && value.contains(kTpuAcceleratorLabel)) {
      bool conflicting = false;
      for (const auto& [label, wanted] : labels) {
        auto have = value.find(label);
        if (have != value.end() && !(have->is_string() && have->get<std::string>() == wanted)) conflicting = true;
      }
      if (conflicting) continue;
      for (const auto& [label, wanted] : labels) value[label] = wanted;
      ++changed;
      continue;
    }
    changed += AddWhereTpu(value, labels);
  }
  return changed;
}

}  // namespace

int AddTpuNodeSelector(std::vector<Object>& objects, const std::map<std::string, std::string>& labels) {
  if (labels.empty()) return 0;
  int changed = 0;
  for (auto& object : objects) changed += AddWhereTpu(object.json, labels);
  return changed;
}

}  // namespace tputrain::k8s
