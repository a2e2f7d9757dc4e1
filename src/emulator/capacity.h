#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"

// What Google runs out of: TPU chips per zone, generation and provisioning mode, shared by the TPU
// API's nodes and queued resources and GKE's TPU node pools; and the regional quota each API keeps
// on its own (the TPU API's TPUV6EPerProjectPerRegionForTPUAPI, Compute's TPUS_PER_TPU_FAMILY).
// The world keeps the limits in world["capacity"]:
//   {"chips": {"us-east5-a/v6e/on-demand": 16, ...}, "quota": {"us-east5/v6e/spot": 0, ...}}
// A key that is absent has no limit. What is held is read from the resources themselves, never
// counted separately: a TPU node past CREATING, a queued resource PROVISIONING, a node pool past
// PROVISIONING (reserved capacity draws on its reservation, not on these).
namespace tputrain::emulator {

enum class CapacityMode { kOnDemand, kSpot };
std::string_view ModeName(CapacityMode mode);

// Chips of one generation in one mode that one resource asks of one zone.
struct ChipDemand {
  std::string zone;
  std::string generation;  // catalog family: "v6e", "v5e", "v5p", "v4"
  CapacityMode mode = CapacityMode::kOnDemand;
  int64_t chips = 0;
};

// "LOCATION/GENERATION[/MODE]=CHIPS,..." as `--capacity` (zones) or `--quota` (regions) take it,
// as the table {"LOCATION/GENERATION/MODE": CHIPS}. Usage errors name `flag`.
core::Result<nlohmann::json> ParseCapacityFlag(std::string_view flag, std::string_view text, bool zones);

// Applies {"chips": {KEY: N | null}, "quota": {KEY: N | null}} (null lifts a limit); a bad key or
// value is a usage error and changes nothing.
core::Result<void> ApplyCapacity(nlohmann::json& world, const nlohmann::json& change);

// Each limit with what is held (chips: total, held, free; quota: limit, used per API).
nlohmann::json CapacityReport(const nlohmann::json& world);

// What a TPU node (nodes.create; its name gives the zone), a queued resource's node specs, or a GKE
// node pool of a cluster asks for. Reserved capacity asks nothing of the pool.
std::optional<ChipDemand> TpuNodeDemand(const nlohmann::json& node);
std::vector<ChipDemand> QueuedResourceDemand(const nlohmann::json& resource);
std::vector<ChipDemand> NodePoolDemand(const nlohmann::json& cluster, const nlohmann::json& pool);

// A queued resource that draws on a reservation (reservationName, guaranteed.reserved, or the
// RESERVATION_BOUND provisioning model).
bool QueuedResourceReserved(const nlohmann::json& resource);

// Whether the zones have the chips free for all of `demands` at once.
bool Fits(const nlohmann::json& world, const std::vector<ChipDemand>& demands);

// The regional quota a create would exceed, for the API whose quota it is.
enum class QuotaApi { kTpu, kCompute };
struct QuotaShortfall {
  std::string region;
  std::string generation;
  CapacityMode mode = CapacityMode::kOnDemand;
  int64_t limit = 0;
  int64_t used = 0;
  int64_t requested = 0;
};
std::optional<QuotaShortfall> QuotaShort(const nlohmann::json& world, QuotaApi api,
                                         const std::vector<ChipDemand>& demands);

// The zone of a TPU resource name ("projects/p/locations/ZONE/...").
std::string ZoneOfName(std::string_view name);

}  // namespace tputrain::emulator
