#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/result.h"

// GKE versions ("1.34.0-gke.2201000", or a prefix GKE resolves: "1.34", "1.34.0") against the
// oldest a TPU generation runs on.
namespace tputrain::catalog {

// major, minor, patch and the gke build, as many as were given.
struct GkeVersion {
  std::vector<long> parts;
};

// nullopt for text that is not a GKE version ("latest", "-" and "" included: GKE picks those).
std::optional<GkeVersion> ParseGkeVersion(std::string_view text);

// Whether `version` can be below `minimum`: false when every part it gives is at least the
// minimum's (a prefix such as "1.34" is not known to be below "1.34.0-gke.2201000": GKE resolves
// it, and the pool's pinned version is checked again once the cluster says what it runs).
bool BelowMinimum(const GkeVersion& version, const GkeVersion& minimum);

// The oldest GKE version a generation's nodes run on ("" when any).
const std::string& MinimumGkeVersion(const TpuGeneration& generation, bool autopilot);

// `version` (a cluster's or a pool's) against the generation's minimum: one usage line naming
// `flag`, what was given and the minimum when it is below. Text that is not a version passes
// (GKE resolves it, or refuses it).
core::Status CheckGkeVersion(const TpuGeneration& generation, std::string_view version, bool autopilot,
                             std::string_view flag);

}  // namespace tputrain::catalog
