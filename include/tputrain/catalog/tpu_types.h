#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tputrain/core/result.h"

namespace tputrain::catalog {

// One TPU generation's fixed facts.
struct TpuGeneration {
  std::string family;                    // "v6e", "v5e", "v5p", "v4", "tpu7x": what users type
  std::string name_prefix;               // "v6e", "v5litepod", "v5p", "v4", "tpu7x": accelerator type prefix
  int tensorcores_per_chip = 1;          // v4, v5p, tpu7x names count TensorCores (2 per chip)
  std::string gke_accelerator;           // cloud.google.com/gke-tpu-accelerator label value
  std::string multi_host_machine_type;   // 4 chips per VM
  std::string single_chip_machine_type;  // 1x1 topologies; empty when there is none
  double hbm_gb_per_chip = 0;            // decimal GB
  double peak_bf16_tflops_per_chip = 0;
  std::string tpu_vm_runtime_version;  // Cloud TPU VM software version
  int dimensions = 2;                  // 2-D or 3-D topologies
  // The oldest GKE versions whose nodes run it (Standard, Autopilot); "" when any does.
  std::string min_gke_version;
  std::string min_autopilot_version;
  // Multi-host slices are placed by a Compute Engine workload policy that the pool names
  // (placementPolicy.policyName) instead of placementPolicy.tpuTopology, and a single-host pool
  // sends no placement at all.
  bool workload_policy = false;
  // The Cloud TPU API (tpu.googleapis.com) offers it; false: only GKE (or Compute Engine) makes it.
  bool cloud_tpu_api = true;
  // Each VM has two NUMA nodes, each with half the chips: GKE runs a pod's containers one per
  // NUMA node (google.com/tpu: chips per host / 2 each).
  int numa_nodes_per_host = 1;
};

// One slice shape: a topology of one generation.
struct TpuSliceType {
  const TpuGeneration* generation = nullptr;
  std::string accelerator_type;  // "v6e-16", "v5litepod-32", "v5p-8": Cloud TPU and xpk name
  std::string topology;          // "4x4", "2x2x1"
  int chips = 0;
  int hosts = 0;             // VMs in the slice = GKE node-pool node count
  int chips_per_host = 0;    // google.com/tpu per node
  std::string machine_type;  // GKE machine type of the node pool
  bool single_host() const { return hosts == 1; }
};

const std::vector<TpuGeneration>& Generations();
// The zones Google lists as offering the generation, in its page's order (tpu_zones.cc): where
// `--zones auto` looks first.
const std::vector<std::string>& ZonesOf(const TpuGeneration& generation);
// Every zone known to offer the generation: Google's list and the zones the TPU API's
// acceleratorTypes.list answered for it (tpu_zones.cc names the sources), sorted.
const std::vector<std::string>& OfferingZonesOf(const TpuGeneration& generation);
// Whether the catalog says `location` offers `slice`: a zone must be one of OfferingZonesOf, a
// region must hold one. Otherwise one usage line naming `flag`, the zones that have it, and
// `bypass` (the flag that goes past the catalog, which can lag Google's).
core::Status CheckOffered(const TpuSliceType& slice, std::string_view location, std::string_view flag,
                          std::string_view bypass);
// Every known slice of a generation, ordered by chip count.
std::vector<TpuSliceType> SlicesOf(const TpuGeneration& generation);
const TpuGeneration* FindGeneration(std::string_view family);  // "v6e", "v5e"/"v5litepod", ...
// Accepts "v6e-16", "v5litepod-32", the alias "v6e-4x4", and "v5e-32" for v5litepod.
core::Result<TpuSliceType> FindSliceType(std::string_view name);
// A generation plus a topology such as "4x8": what GKE node pools are specified by.
core::Result<TpuSliceType> FindSliceByTopology(const TpuGeneration& generation, std::string_view topology);
// The GKE machine type's slice shape: "ct6e-standard-4t" + "4x4" → v6e-16.
core::Result<TpuSliceType> FindSliceByMachineType(std::string_view machine_type, std::string_view topology);
// The slice one VM of a TPU machine type holds, for a pool given only --machine-type:
// ct6e-standard-8t is v6e-8 (2x4) on one host, tpu7x-standard-4t is tpu7x-8 (2x2x1),
// ct6e-standard-1t is v6e-1. NotFound for a machine type that is not a TPU one.
core::Result<TpuSliceType> SingleHostSliceOf(std::string_view machine_type);
// The slice on one VM: itself when single-host, else the single-host variant GKE offers for its
// topology (v6e-8 on ct6e-standard-8t); NotFound when there is none (v6e-16).
core::Result<TpuSliceType> OneHostVariant(const TpuSliceType& slice);

}  // namespace tputrain::catalog
