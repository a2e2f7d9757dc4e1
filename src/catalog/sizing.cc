#include "tputrain/catalog/sizing.h"
#include "tputrain/core/text.h"

#include <fmt/format.h>
#include <cmath>

namespace tputrain::catalog {
namespace {

// Serving holds the weights (2 bytes per parameter in bf16, 1 in int8) plus 20% for the KV
// cache, activations and XLA buffers.
constexpr double kServingHeadroom = 0.20;
// Training with Adam in MaxText's default precision keeps fp32 weights (4), fp32 gradients (4)
// and the two fp32 Adam moments (8): 16 bytes per parameter. Activations, XLA temporaries and
// compilation buffers need about as much again, so the state is planned to fill at most half
// of HBM (headroom 100%).
constexpr double kTrainingBytesPerParameter = 16;
constexpr double kTrainingHeadroom = 1.0;

core::Result<double> ServingBytesPerParameter(const std::string& dtype) {
  if (dtype == "bf16") return 2.0;
  if (dtype == "int8") return 1.0;
  return core::Fail(core::Error::Usage("--dtype: unknown dtype '" + dtype + "'; expected bf16 or int8"));
}

// Generations tried in turn when the model's default cannot hold it: the most HBM in one slice.
constexpr std::string_view kLargerGenerations[] = {"v5p", "tpu7x"};

std::string AcceleratorChoices() {
  std::string names;
  for (const auto& generation : Generations()) names += (names.empty() ? "" : ", ") + generation.family;
  return names;
}

// The smallest slice of the generation with the memory, and at least `min_chips`.
std::optional<TpuSliceType> SmallestSlice(const TpuGeneration& generation, double memory_gb, int min_chips) {
  const int chips = std::max(static_cast<int>(std::ceil(memory_gb / generation.hbm_gb_per_chip - 1e-9)), min_chips);
  for (const auto& slice : SlicesOf(generation)) {
    if (slice.chips >= chips) return slice;
  }
  return std::nullopt;
}

long Rounded(double gb) { return std::lround(gb); }

// How a model was named on the command line, for an error about it.
std::string ModelFlag(const Model& model) {
  switch (model.origin) {
    case ModelOrigin::kParameterCount:
      return model.origin_detail;
    case ModelOrigin::kHuggingFaceConfig:
      return "--hf-config";
    default:
      return "--model " + model.name;
  }
}

}  // namespace

IciParallelism SplitIci(int chips) {
  IciParallelism ici;
  ici.tensor = chips >= 4 && chips % 4 == 0 ? 4 : chips;  // tensor parallelism within one host's chips
  ici.fsdp = chips / ici.tensor;
  return ici;
}

core::Result<SlicePlan> PlanSlice(const PlanRequest& request) {
  auto model = FindModel(request.model);
  if (!model) return core::Fail(model.error());
  return PlanSlice(*model, request);
}

core::Result<SlicePlan> PlanSlice(const Model& model, const PlanRequest& request) {
  SlicePlan plan;
  plan.model = model;
  plan.mode = request.mode.value_or(model.default_mode);
  plan.dtype = request.dtype;
  if (plan.dtype.empty()) plan.dtype = plan.mode == model.default_mode ? model.default_dtype : "bf16";
  if (request.slices < 0) return core::Fail(core::Error::Usage("--slices: expected a positive number of slices"));
  // A preset's slices and floor are its serving setup's (a disaggregated server): its default mode's.
  const bool preset_mode = plan.mode == model.default_mode;
  plan.slices = request.slices > 0 ? request.slices : preset_mode ? model.default_slices : 1;
  const int min_chips = preset_mode ? model.min_chips_per_slice : 0;

  std::string family = request.accelerator.empty() ? model.default_accelerator : request.accelerator;
  const TpuGeneration* generation = FindGeneration(family);
  if (generation == nullptr) {
    return core::Fail(core::Error::Usage("--accelerator: unknown TPU generation '" + family + "'; expected one of " +
                                         AcceleratorChoices()));
  }

  if (plan.mode == WorkloadMode::kServe) {
    auto bytes = ServingBytesPerParameter(plan.dtype);
    if (!bytes) return core::Fail(bytes.error());
    plan.bytes_per_parameter = *bytes;
    plan.headroom = kServingHeadroom;
  } else {
    if (plan.dtype != "bf16") {
      return core::Fail(core::Error::Usage("--dtype: training runs in bf16 (got '" + plan.dtype + "')"));
    }
    plan.bytes_per_parameter = kTrainingBytesPerParameter;
    plan.headroom = kTrainingHeadroom;
  }

  // Every slice holds a whole copy of the (sharded) model: slices add data parallelism or
  // disaggregated stages, never more memory for one copy. A mixture of experts holds every
  // expert: the router may send any token to any of them.
  double weights_gb = model.parameters * plan.bytes_per_parameter / 1e9;
  plan.memory_gb_per_slice = weights_gb * (1 + plan.headroom);
  plan.memory_gb = plan.memory_gb_per_slice * plan.slices;

  std::string assumed;
  if (model.mixture_of_experts()) {
    assumed = fmt::format(
        "mixture of experts: every expert's weights are held in HBM (a token may be routed to any of them), so "
        "memory is sized on all {:.4g} B parameters; the {:.4g} B active per token set the compute, not the memory. ",
        model.parameters / 1e9, model.active_parameters / 1e9);
  }
  std::optional<TpuSliceType> chosen = SmallestSlice(*generation, plan.memory_gb_per_slice, min_chips);
  if (!chosen && request.accelerator.empty()) {
    // The default generation cannot hold it: the next one with more HBM per slice can.
    for (std::string_view larger : kLargerGenerations) {
      const TpuGeneration* next = FindGeneration(larger);
      if (next == nullptr || next == generation) continue;
      chosen = SmallestSlice(*next, plan.memory_gb_per_slice, min_chips);
      if (!chosen) continue;
      const auto largest = SlicesOf(*generation).back();
      assumed +=
          fmt::format("{} GB per slice is more than {}'s largest slice holds ({}: {:.0f} GB), so it is sized on {}. ",
                      Rounded(plan.memory_gb_per_slice), generation->family, largest.accelerator_type,
                      largest.chips * generation->hbm_gb_per_chip, next->family);
      generation = next;
      break;
    }
  }
  double chips_needed = plan.memory_gb_per_slice / generation->hbm_gb_per_chip;
  plan.min_chips_per_slice = std::max(static_cast<int>(std::ceil(chips_needed - 1e-9)), min_chips);
  if (!chosen) {
    return core::Fail(core::Error::Usage(
        fmt::format("{}: needs {:.0f} GB per slice ({} chips of {}), more than the largest {} slice; "
                    "try --dtype int8 or another --accelerator ({})",
                    ModelFlag(model), plan.memory_gb_per_slice, plan.min_chips_per_slice, generation->family,
                    generation->family, AcceleratorChoices())));
  }
  plan.slice = *chosen;
  plan.nodes_per_slice = plan.slice.hosts;
  if (plan.mode == WorkloadMode::kTrain) plan.ici = SplitIci(plan.slice.chips);

  plan.formula =
      assumed +
      fmt::format(
          "{:.4g} B parameters × {} ({}) = {:.0f} GB; ÷ {:.4g} GB HBM per chip = {:.1f} chips for that alone; "
          "+ {:.0f}% headroom = {:.0f} GB per slice → {:.1f} → {} chips{} → smallest {} slice: {} ({}), "
          "{} × {} chips, {}",
          model.parameters / 1e9, core::Counted(static_cast<long long>(plan.bytes_per_parameter), "byte"),
          plan.mode == WorkloadMode::kServe ? plan.dtype + " weights" : "fp32 weights, gradients, Adam moments",
          weights_gb, generation->hbm_gb_per_chip, weights_gb / generation->hbm_gb_per_chip, plan.headroom * 100,
          plan.memory_gb_per_slice, chips_needed, plan.min_chips_per_slice,
          min_chips > 0 ? fmt::format(" (the server needs at least {})", min_chips) : "", generation->family,
          plan.slice.accelerator_type, plan.slice.topology, core::Counted(plan.slice.hosts, "host"),
          plan.slice.chips_per_host, plan.slice.machine_type);
  return plan;
}

}  // namespace tputrain::catalog
