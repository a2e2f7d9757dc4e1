#include "tputrain/render/values.h"

#include <yaml-cpp/yaml.h>

#include "tputrain/core/file.h"
#include "tputrain/yaml/bounded.h"

namespace tputrain::render {
namespace {

bool IsInteger(const std::string& value) {
  std::size_t i = (!value.empty() && (value[0] == '-' || value[0] == '+')) ? 1 : 0;
  if (i >= value.size()) return false;
  for (; i < value.size(); ++i) {
    if (value[i] < '0' || value[i] > '9') return false;
  }
  return true;
}

}  // namespace

std::string_view TypeName(ValueType type) {
  switch (type) {
    case ValueType::kInt:
      return "int";
    case ValueType::kBool:
      return "bool";
    case ValueType::kString:
      break;
  }
  return "string";
}

core::Result<ValueType> ParseTypeName(std::string_view name) {
  if (name == "string") return ValueType::kString;
  if (name == "int") return ValueType::kInt;
  if (name == "bool") return ValueType::kBool;
  return core::Fail(core::Error::Usage("type must be string, int or bool, got '" + std::string(name) + "'"));
}

core::Status CheckValueType(const std::string& name, const std::string& value, ValueType type,
                            std::string_view origin) {
  if (type == ValueType::kInt && !IsInteger(value)) {
    return core::Fail(
        core::Error::Usage(std::string(origin) + ": " + name + " must be an integer, got '" + value + "'"));
  }
  if (type == ValueType::kBool && value != "true" && value != "false") {
    return core::Fail(
        core::Error::Usage(std::string(origin) + ": " + name + " must be true or false, got '" + value + "'"));
  }
  return {};
}

const std::vector<std::pair<std::string, std::string>>& ComputedNames() {
  static const std::vector<std::pair<std::string, std::string>> names = {
      {"TPU_ACCELERATOR_TYPE", "Cloud TPU accelerator type of one slice (v6e-16)"},
      {"TPU_GENERATION", "TPU generation (v6e, v5e, v5p)"},
      {"TPU_TOPOLOGY", "slice topology, the gke-tpu-topology node label (4x4)"},
      {"TPU_CHIPS", "chips in one slice"},
      {"TPU_CHIPS_PER_HOST", "chips per VM = google.com/tpu per pod, a string (\"4\")"},
      {"NUM_HOSTS", "VMs (GKE nodes) in one slice"},
      {"TOTAL_HOSTS", "VMs in all slices"},
      {"TOTAL_CHIPS", "chips in all slices"},
      {"GKE_ACCELERATOR", "cloud.google.com/gke-tpu-accelerator node label"},
      {"MACHINE_TYPE", "GKE machine type of the TPU node pool"},
      {"ONE_HOST_MACHINE_TYPE",
       "GKE machine type that holds the whole slice on one VM (ct6e-standard-8t for a 2x4); empty when none does"},
      {"LWS_SIZE", "LeaderWorkerSet group size: every host of every slice plus the leader"},
      {"RAY_NUM_WORKERS", "Ray Train workers: one per TPU host"},
      {"RAY_TPU_ACCELERATOR", "Ray's accelerator_type for the generation (TPU-V6E)"},
      {"TPU_PLATFORM_CHIP", "chip name servers take as a flag (tpuv6e, tpuv5e)"},
      {"PATHWAYS_INSTANCE_TYPE", "Pathways --instance_type (tpuv6e:4x4)"},
      {"SLICE_TOPOLOGY_KEY",
       "node label one slice's hosts share and no other slice's: cloud.google.com/gke-nodepool (multi-host), "
       "kubernetes.io/hostname (single-host)"},
  };
  return names;
}

bool IsComputed(std::string_view name) {
  for (const auto& [known, meaning] : ComputedNames()) {
    if (known == name) return true;
  }
  return false;
}

std::string ComputedMeaning(std::string_view name) {
  for (const auto& [known, meaning] : ComputedNames()) {
    if (known == name) return meaning;
  }
  return "";
}

bool IsValidName(std::string_view name) {
  if (name.empty()) return false;
  auto start = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!start(name[0])) return false;
  for (char c : name) {
    if (!start(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

core::Result<std::pair<std::string, std::string>> ParseAssignment(std::string_view text, std::string_view flag) {
  const auto equals = text.find('=');
  if (equals == std::string_view::npos) {
    return core::Fail(core::Error::Usage(std::string(flag) + " '" + std::string(text) +
                                         "': expected NAME=VALUE (e.g. " + std::string(flag) + " KSA_NAME=ray-ksa)"));
  }
  std::string name(text.substr(0, equals));
  if (!IsValidName(name)) {
    return core::Fail(
        core::Error::Usage(std::string(flag) + " '" + std::string(text) + "': '" + name +
                           "' is not a variable name (letters, digits and _, not starting with a digit)"));
  }
  return std::make_pair(std::move(name), std::string(text.substr(equals + 1)));
}

core::Result<std::map<std::string, std::string>> ParseValuesYaml(const std::string& text, const std::string& origin) {
  auto loaded = yaml::Load(text, origin);
  if (!loaded) return core::Fail(loaded.error());
  const YAML::Node& root = *loaded;
  std::map<std::string, std::string> values;
  if (root.IsNull()) return values;
  if (!root.IsMap()) return core::Fail(core::Error::Usage(origin + ": expected a mapping of NAME: value"));
  for (const auto& entry : root) {
    const std::string name = entry.first.Scalar();
    if (!IsValidName(name)) {
      return core::Fail(core::Error::Usage(origin + ": '" + name + "' is not a variable name"));
    }
    if (entry.second.IsNull()) {
      values[name] = "";
    } else if (entry.second.IsScalar()) {
      values[name] = entry.second.Scalar();
    } else {
      return core::Fail(core::Error::Usage(origin + ": " + name + ": expected a single value, not a list or mapping"));
    }
  }
  return values;
}

core::Result<std::map<std::string, std::string>> LoadValuesFile(const std::string& path) {
  auto text = core::ReadFile(path, "--values", core::kMiB);  // a directory or a missing file says so
  if (!text) return core::Fail(text.error());
  return ParseValuesYaml(*text, "--values " + path);
}

}  // namespace tputrain::render
