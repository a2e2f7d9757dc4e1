#pragma once

#include <optional>
#include <string>

#include "tputrain/catalog/models.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/result.h"

namespace tputrain::catalog {

// MaxText ICI mesh split for one slice: fsdp × tensor = chips of the slice.
struct IciParallelism {
  int fsdp = 1;
  int tensor = 1;
  int product() const { return fsdp * tensor; }
};

struct PlanRequest {
  std::string model;                 // a name Models() knows (PlanSlice(model, request) ignores it)
  std::optional<WorkloadMode> mode;  // default: the model's
  std::string accelerator;           // family; default: the model's, or a larger one when that cannot hold it
  std::string dtype;                 // "bf16" or "int8"; default: the model's
  int slices = 0;                    // 0: the model's default
};

struct SlicePlan {
  Model model;
  WorkloadMode mode = WorkloadMode::kTrain;
  std::string dtype;
  double bytes_per_parameter = 0;  // 2 bf16 / 1 int8 serving; 16 for mixed-precision Adam training
  double headroom = 0;             // fraction added on top of weights (+ optimizer) for activations, KV cache
  double memory_gb = 0;            // total across all slices
  double memory_gb_per_slice = 0;
  int min_chips_per_slice = 0;  // ceil(memory per slice / HBM per chip)
  TpuSliceType slice;           // the smallest valid slice with at least that many chips
  int slices = 1;
  int nodes_per_slice = 0;  // node-pool node count = chips / chips per host
  IciParallelism ici;       // training only
  std::string formula;      // the arithmetic, in words, for `plan` to show; what was assumed first
};

// The smallest slice that holds the model: serving holds the weights (all experts' for a mixture
// of experts) plus headroom; training the fp32 weights, gradients and Adam moments plus as much
// again. Without --accelerator, a model too large for its default generation's largest slice is
// sized on the next generation that holds it (v5p, then tpu7x), and `formula` says so.
core::Result<SlicePlan> PlanSlice(const PlanRequest& request);
core::Result<SlicePlan> PlanSlice(const Model& model, const PlanRequest& request);

// Splits `chips` into fsdp × tensor with tensor ≤ 4 (one host's chips), as seed 001 runs
// Llama 3 8B on v6e-16: fsdp 4 × tensor 4.
IciParallelism SplitIci(int chips);

}  // namespace tputrain::catalog
