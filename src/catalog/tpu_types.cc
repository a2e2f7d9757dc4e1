#include "tputrain/catalog/tpu_types.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace tputrain::catalog {
namespace {

// Sources, per number:
// [xpk] AI-Hypercomputer/xpk src/xpk/core/system_characteristics.py @367c8382: prefixes,
//       TensorCores per chip, GKE machine types and accelerator labels, topologies, 4 chips/VM.
// [tpud] Cloud TPU documentation, per-generation system architecture pages: HBM per chip and
//       peak bf16 TFLOP/s (v4: 32 GiB, 275; v5e: 16 GB, 197; v5p: 95 GB, 459; v6e: 32 GB, 918;
//       tpu7x: 192 GiB, 2307). GiB figures are converted to decimal GB here.
// [gcloud] runtime versions used by the seed's `gcloud compute tpus tpu-vm create` commands
//       (v2-alpha-tpuv5 for v5p, v2-alpha-tpuv6e for v6e) and the Cloud TPU docs' software
//       versions page (v2-alpha-tpuv5-lite for v5e, tpu-ubuntu2204-base for v4).
// [gke7x] GKE's "About Ironwood (TPU7x) in GKE" (kubernetes-engine/docs/concepts/tpu-ironwood):
//       GKE Standard 1.34.0-gke.2201000 or later, Autopilot 1.34.1-gke.3084001 or later; multi-host
//       slices through a HIGH_THROUGHPUT workload policy named by --placement-policy, which
//       "replaces the --tpu-topology flag"; two NUMA nodes per VM. Cloud TPU's tpu7x page: the
//       Cloud TPU API has no TPU7x (GKE or Compute Engine only).
constexpr double kGiB = 1.073741824;  // GB per GiB

const std::vector<TpuGeneration>& AllGenerations() {
  static const std::vector<TpuGeneration> generations = {
      // family, prefix, TC/chip, GKE label, 4-chip machine, 1-chip machine, HBM GB, TFLOP/s, runtime, dims
      {"v4", "v4", 2, "tpu-v4-podslice", "ct4p-hightpu-4t", "", 32 * kGiB, 275, "tpu-ubuntu2204-base", 3},
      {"v5e", "v5litepod", 1, "tpu-v5-lite-podslice", "ct5lp-hightpu-4t", "ct5lp-hightpu-1t", 16, 197,
       "v2-alpha-tpuv5-lite", 2},
      {"v5p", "v5p", 2, "tpu-v5p-slice", "ct5p-hightpu-4t", "", 95, 459, "v2-alpha-tpuv5", 3},
      {"v6e", "v6e", 1, "tpu-v6e-slice", "ct6e-standard-4t", "ct6e-standard-1t", 32, 918, "v2-alpha-tpuv6e", 2},
      // Not on the Cloud TPU API, so no TPU VM runtime version [gke7x].
      {"tpu7x", "tpu7x", 2, "tpu7x", "tpu7x-standard-4t", "tpu7x-standard-1t", 192 * kGiB, 2307, "", 3,
       "1.34.0-gke.2201000", "1.34.1-gke.3084001", /*workload_policy=*/true, /*cloud_tpu_api=*/false,
       /*numa_nodes_per_host=*/2},
  };
  return generations;
}

struct Shape {
  const char* topology;
  // A single-host variant on a bigger machine, where GKE offers one (the gaps xpk does not list:
  // ct5lp-hightpu-8t and ct6e-standard-8t hold a whole 2x4 on one VM).
  const char* single_host_machine = nullptr;
};

// Topologies per family, smallest first [xpk; single-host variants from GKE "Plan TPUs"].
const std::vector<Shape>& ShapesOf(std::string_view family) {
  static const std::vector<Shape> v4 = {{"2x2x1"}, {"2x2x2"}, {"2x2x4"},  {"2x4x4"},   {"4x4x4"},  {"4x4x8"},
                                        {"4x8x8"}, {"8x8x8"}, {"8x8x16"}, {"8x16x16"}, {"4x4x256"}};
  static const std::vector<Shape> v5p = {{"2x2x1"},    {"2x2x2"},    {"2x2x4"},   {"2x4x4"},  {"4x4x4"},
                                         {"4x4x8"},    {"4x8x8"},    {"8x8x8"},   {"8x8x16"}, {"8x16x16"},
                                         {"16x16x16"}, {"16x16x24"}, {"16x20x28"}};
  static const std::vector<Shape> v5e = {{"1x1"},  {"2x2"},  {"2x4", "ct5lp-hightpu-8t"}, {"4x4"}, {"4x8"}, {"8x8"},
                                         {"8x16"}, {"16x16"}};
  static const std::vector<Shape> v6e = {{"1x1"},  {"2x2"},  {"2x4", "ct6e-standard-8t"}, {"4x4"}, {"4x8"}, {"8x8"},
                                         {"8x16"}, {"16x16"}};
  static const std::vector<Shape> tpu7x = {{"1x1x1"},   {"2x2x1"},    {"2x2x2"},   {"2x2x4"}, {"2x4x4"},
                                           {"4x4x4"},   {"4x4x8"},    {"4x8x8"},   {"8x8x8"}, {"8x8x16"},
                                           {"8x16x16"}, {"16x16x16"}, {"16x24x24"}};
  static const std::vector<Shape> none;
  if (family == "v4") return v4;
  if (family == "v5p") return v5p;
  if (family == "v5e") return v5e;
  if (family == "v6e") return v6e;
  if (family == "tpu7x") return tpu7x;
  return none;
}

// "4x4x8" → 128; 0 when the text is not a topology.
int ChipsOfTopology(std::string_view topology) {
  int product = 1;
  int dims = 0;
  while (!topology.empty()) {
    auto x = topology.find('x');
    auto part = topology.substr(0, x);
    int value = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (ec != std::errc() || end != part.data() + part.size() || value <= 0) return 0;
    product *= value;
    ++dims;
    if (x == std::string_view::npos) break;
    topology.remove_prefix(x + 1);
  }
  return dims >= 2 ? product : 0;
}

// xpk's rule: one chip per VM for a 1-chip topology, else 4 chips per VM.
TpuSliceType MakeSlice(const TpuGeneration& generation, const Shape& shape, bool single_host_variant) {
  TpuSliceType slice;
  slice.generation = &generation;
  slice.topology = shape.topology;
  slice.chips = ChipsOfTopology(shape.topology);
  slice.accelerator_type = generation.name_prefix + "-" + std::to_string(slice.chips * generation.tensorcores_per_chip);
  if (single_host_variant) {
    slice.chips_per_host = slice.chips;
    slice.machine_type = shape.single_host_machine;
  } else if (slice.chips == 1) {
    slice.chips_per_host = 1;
    slice.machine_type = generation.single_chip_machine_type;
  } else {
    slice.chips_per_host = std::min(4, slice.chips);
    slice.machine_type = generation.multi_host_machine_type;
  }
  slice.hosts = slice.chips / slice.chips_per_host;
  return slice;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string ValidFamilies() {
  std::string names;
  for (const auto& generation : AllGenerations()) names += (names.empty() ? "" : ", ") + generation.family;
  return names;
}

}  // namespace

const std::vector<TpuGeneration>& Generations() { return AllGenerations(); }

std::vector<TpuSliceType> SlicesOf(const TpuGeneration& generation) {
  std::vector<TpuSliceType> slices;
  for (const auto& shape : ShapesOf(generation.family)) {
    auto slice = MakeSlice(generation, shape, false);
    if (!slice.machine_type.empty()) slices.push_back(slice);
  }
  return slices;
}

const TpuGeneration* FindGeneration(std::string_view family) {
  std::string name = Lower(family);
  if (name == "v5litepod" || name == "v5lite") name = "v5e";
  for (const auto& generation : AllGenerations()) {
    if (generation.family == name) return &generation;
  }
  return nullptr;
}

core::Result<TpuSliceType> FindSliceType(std::string_view name) {
  std::string text = Lower(name);
  auto dash = text.rfind('-');
  const TpuGeneration* generation = dash == std::string::npos ? nullptr : FindGeneration(text.substr(0, dash));
  if (generation == nullptr) {
    return core::Fail(core::Error::Usage("unknown TPU type '" + std::string(name) +
                                         "': expected <generation>-<size> or <generation>-<topology> with "
                                         "generation one of " +
                                         ValidFamilies() + " (e.g. v6e-16, v5litepod-32, v5p-8)"));
  }
  std::string suffix = text.substr(dash + 1);
  std::vector<std::string> valid;
  for (const auto& slice : SlicesOf(*generation)) {
    std::string count = slice.accelerator_type.substr(slice.accelerator_type.rfind('-') + 1);
    if (suffix == count || suffix == slice.topology) return slice;
    valid.push_back(slice.accelerator_type);
  }
  std::string list;
  for (const auto& v : valid) list += (list.empty() ? "" : ", ") + v;
  return core::Fail(core::Error::Usage("unknown TPU type '" + std::string(name) + "': valid " + generation->family +
                                       " types are " + list));
}

core::Result<TpuSliceType> FindSliceByTopology(const TpuGeneration& generation, std::string_view topology) {
  for (const auto& slice : SlicesOf(generation)) {
    if (slice.topology == topology) return slice;
  }
  std::string list;
  for (const auto& slice : SlicesOf(generation)) list += (list.empty() ? "" : ", ") + slice.topology;
  return core::Fail(core::Error::Usage("unknown topology '" + std::string(topology) + "' for " + generation.family +
                                       ": expected one of " + list));
}

core::Result<TpuSliceType> FindSliceByMachineType(std::string_view machine_type, std::string_view topology) {
  for (const auto& generation : AllGenerations()) {
    for (const auto& shape : ShapesOf(generation.family)) {
      if (shape.topology != topology) continue;
      if (shape.single_host_machine != nullptr && machine_type == shape.single_host_machine) {
        return MakeSlice(generation, shape, true);
      }
      auto slice = MakeSlice(generation, shape, false);
      if (slice.machine_type == machine_type) return slice;
    }
  }
  for (const auto& generation : AllGenerations()) {
    if (machine_type == generation.multi_host_machine_type || machine_type == generation.single_chip_machine_type) {
      return core::Fail(core::Error::Usage("topology '" + std::string(topology) + "' is not available on " +
                                           std::string(machine_type)));
    }
  }
  return core::Fail(core::Error::Usage("unknown TPU machine type '" + std::string(machine_type) + "'"));
}

core::Result<TpuSliceType> SingleHostSliceOf(std::string_view machine_type) {
  for (const auto& generation : AllGenerations()) {
    for (const auto& shape : ShapesOf(generation.family)) {
      if (shape.single_host_machine != nullptr && machine_type == shape.single_host_machine) {
        return MakeSlice(generation, shape, true);
      }
      // The smallest slice of the machine type: one VM's worth.
      auto slice = MakeSlice(generation, shape, false);
      if (slice.machine_type == machine_type && slice.single_host()) return slice;
    }
  }
  return core::Fail(
      core::Error::Make(core::ErrorKind::kNotFound, "'" + std::string(machine_type) + "' is not a TPU machine type"));
}

core::Result<TpuSliceType> OneHostVariant(const TpuSliceType& slice) {
  if (slice.single_host()) return slice;
  if (slice.generation != nullptr) {
    for (const auto& shape : ShapesOf(slice.generation->family)) {
      if (shape.topology == slice.topology && shape.single_host_machine != nullptr) {
        return MakeSlice(*slice.generation, shape, true);
      }
    }
  }
  return core::Fail(core::Error::Make(
      core::ErrorKind::kNotFound,
      slice.accelerator_type + " has " + std::to_string(slice.hosts) + " hosts and no single-host machine type"));
}

}  // namespace tputrain::catalog
