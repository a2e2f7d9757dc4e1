#include "template_values.h"

#include "tputrain/core/gcp_location.h"

namespace tputrain::workflow {
namespace {

std::string Upper(std::string text) {
  for (char& c : text) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return text;
}

// The chip name Pathways' resource manager takes in --instance_type: "tpu" and the family for
// v4, v5e and v6e, but "tpuv5" for v5p and "tpu7x" for Ironwood (as the Pathways manifests of
// pathways-utils and Google's Ironwood recipes write them: tpuv5:2x2x1, tpu7x:4x4x4).
std::string PathwaysChip(const std::string& family) {
  if (family == "v5p") return "tpuv5";
  if (family == "tpu7x") return "tpu7x";
  return "tpu" + family;
}

}  // namespace

std::map<std::string, std::string> ConfigurationValues(const config::Settings& settings) {
  std::map<std::string, std::string> values;
  for (auto [key, name] : {std::pair{"project", "PROJECT_ID"},
                           {"location", "LOCATION"},
                           {"cluster", "CLUSTER_NAME"},
                           {"bucket", "BUCKET"}}) {
    if (auto value = settings.Get(key); value && !value->empty()) values[name] = *value;
  }
  if (auto location = values.find("LOCATION"); location != values.end()) {
    values["REGION"] = core::RegionOf(location->second);
  }
  return values;
}

std::vector<render::ComputedValue> ValuesForSlice(const catalog::TpuSliceType& slice, int slices) {
  using render::ValueType;
  const std::string family = slice.generation ? slice.generation->family : "";
  const std::string prefix = slice.generation ? slice.generation->name_prefix : family;
  const std::string gke = slice.generation ? slice.generation->gke_accelerator : "";
  const std::string chip = "tpu" + family;
  const int total_hosts = slice.hosts * slices;
  const auto one_host = catalog::OneHostVariant(slice);
  auto make = [](std::string name, std::string value, ValueType type) {
    std::string meaning = render::ComputedMeaning(name);
    return render::ComputedValue{std::move(name), std::move(value), type, std::move(meaning)};
  };
  return {
      make("TPU_ACCELERATOR_TYPE", slice.accelerator_type, ValueType::kString),
      make("TPU_GENERATION", family, ValueType::kString),
      make("TPU_TOPOLOGY", slice.topology, ValueType::kString),
      make("TPU_CHIPS", std::to_string(slice.chips), ValueType::kInt),
      make("TPU_CHIPS_PER_HOST", std::to_string(slice.chips_per_host), ValueType::kString),
      make("NUM_HOSTS", std::to_string(slice.hosts), ValueType::kInt),
      make("TOTAL_HOSTS", std::to_string(total_hosts), ValueType::kInt),
      make("TOTAL_CHIPS", std::to_string(slice.chips * slices), ValueType::kInt),
      make("GKE_ACCELERATOR", gke, ValueType::kString),
      make("MACHINE_TYPE", slice.machine_type, ValueType::kString),
      make("ONE_HOST_MACHINE_TYPE", one_host ? one_host->machine_type : "", ValueType::kString),
      make("LWS_SIZE", std::to_string(total_hosts + 1), ValueType::kInt),
      make("RAY_NUM_WORKERS", std::to_string(total_hosts), ValueType::kInt),
      make("RAY_TPU_ACCELERATOR", "TPU-" + Upper(prefix), ValueType::kString),
      make("TPU_PLATFORM_CHIP", chip, ValueType::kString),
      make("PATHWAYS_INSTANCE_TYPE", PathwaysChip(family) + ":" + slice.topology, ValueType::kString),
      // GKE makes one node pool per multi-host slice; a single-host slice is one node, and a
      // pool of such nodes holds several slices.
      make("SLICE_TOPOLOGY_KEY", slice.hosts > 1 ? "cloud.google.com/gke-nodepool" : "kubernetes.io/hostname",
           ValueType::kString),
  };
}

core::Result<std::vector<render::ComputedValue>> SliceTemplateValues(const std::string& tpu_type, int slices) {
  auto slice = catalog::FindSliceType(tpu_type);
  if (!slice) return core::Fail(slice.error());
  return ValuesForSlice(*slice, slices);
}

}  // namespace tputrain::workflow
