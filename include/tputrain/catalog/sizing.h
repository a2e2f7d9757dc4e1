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
  std::string model;                 // preset name
  std::optional<WorkloadMode> mode;  // default: the preset's
  std::string accelerator;           // family; default: the preset's
  std::string dtype;                 // "bf16" or "int8"; default: the preset's
  int slices = 0;                    // 0: the preset's default
};

struct SlicePlan {
  ModelPreset model;
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
  std::string formula;      // the arithmetic, in words, for `plan` to show
};

core::Result<SlicePlan> PlanSlice(const PlanRequest& request);

// Splits `chips` into fsdp × tensor with tensor ≤ 4 (one host's chips), as seed 001 runs
// Llama 3 8B on v6e-16: fsdp 4 × tensor 4.
IciParallelism SplitIci(int chips);

}  // namespace tputrain::catalog
