// Which zones offer each TPU generation. Two sources (../shared/notes/capacity-cost.md §A.6):
// [google] Google's "TPU regions and zones" page (cloud.google.com/tpu/docs/regions-zones, the
//          copy dated 2025-09, North America and Europe as listed there): ZonesOf, the zones
//          `--zones auto` tries, in the page's order.
// [sky-v]  the zones where the TPU API's acceleratorTypes.list offered the generation to
//          SkyPilot's catalog fetcher (skypilot-org/skypilot-catalog catalogs/v7/gcp/vms.csv at
//          017e2502, rows with and without a price): with [google], OfferingZonesOf, what a
//          create is checked against before any call.
// A listed zone is no promise of capacity or quota: `--zones auto` checks each with the TPU API's
// acceleratorTypes.list before use, and --skip-zone-check goes past a list that lags Google's.
#include <algorithm>
#include <set>

#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/gcp_location.h"

namespace tputrain::catalog {

const std::vector<std::string>& ZonesOf(const TpuGeneration& generation) {
  static const std::vector<std::string> v4 = {"us-central2-b"};
  static const std::vector<std::string> v5e = {"us-central1-a", "us-south1-a", "us-west1-c", "us-west4-a"};
  static const std::vector<std::string> v5p = {"us-central1-a", "us-east5-a"};
  static const std::vector<std::string> v6e = {"us-central1-b", "us-east1-d", "us-east5-a", "us-east5-b",
                                               "europe-west4-a"};
  static const std::vector<std::string> tpu7x = {"us-central1-c"};
  static const std::vector<std::string> none;
  if (generation.family == "v4") return v4;
  if (generation.family == "v5e") return v5e;
  if (generation.family == "v5p") return v5p;
  if (generation.family == "v6e") return v6e;
  if (generation.family == "tpu7x") return tpu7x;
  return none;
}

namespace {

// [sky-v]'s zones beyond [google]'s, per generation.
const std::vector<std::string>& ListedByAcceleratorTypes(std::string_view family) {
  static const std::vector<std::string> v5e = {"us-east1-b",     "us-east1-c",     "us-east5-a",       "us-east5-b",
                                               "us-east5-c",     "us-west4-b",     "europe-west4-a",   "europe-west4-b",
                                               "europe-west1-b", "europe-west1-c", "europe-north1-a",  "asia-east1-a",
                                               "asia-east1-b",   "asia-east1-c",   "asia-southeast1-b"};
  static const std::vector<std::string> v5p = {"us-east5-b",     "us-east5-c",     "us-east1-d",
                                               "us-south1-a",    "us-south1-b",    "us-south1-c",
                                               "europe-west4-b", "europe-west1-b", "europe-west1-d"};
  static const std::vector<std::string> v6e = {
      "us-central1-c",     "us-east5-c",   "us-east4-a",           "us-east4-b",           "us-south1-a",
      "us-south1-c",       "us-west1-c",   "asia-northeast1-b",    "asia-south1-b",        "asia-south1-c",
      "asia-southeast1-b", "asia-east1-c", "southamerica-east1-c", "southamerica-west1-a", "us-central2-b"};
  static const std::vector<std::string> none;
  if (family == "v5e") return v5e;
  if (family == "v5p") return v5p;
  if (family == "v6e") return v6e;
  return none;
}

std::string Joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

const std::vector<std::string>& OfferingZonesOf(const TpuGeneration& generation) {
  static const auto* all = [] {
    auto* zones = new std::vector<std::vector<std::string>>();
    for (const auto& each : Generations()) {
      std::set<std::string> set(ZonesOf(each).begin(), ZonesOf(each).end());
      const auto& more = ListedByAcceleratorTypes(each.family);
      set.insert(more.begin(), more.end());
      zones->emplace_back(set.begin(), set.end());
    }
    return zones;
  }();
  const auto& generations = Generations();
  for (size_t i = 0; i < generations.size(); ++i) {
    if (&generations[i] == &generation || generations[i].family == generation.family) return (*all)[i];
  }
  static const std::vector<std::string> none;
  return none;
}

core::Status CheckOffered(const TpuSliceType& slice, std::string_view location, std::string_view flag,
                          std::string_view bypass) {
  if (slice.generation == nullptr) return {};
  const auto& zones = OfferingZonesOf(*slice.generation);
  const bool zone = core::IsZone(location);
  const bool offered = std::any_of(zones.begin(), zones.end(), [&](const std::string& each) {
    return zone ? each == location : core::RegionOf(each) == location;
  });
  if (offered) return {};
  return core::Fail(core::Error::Usage(std::string(flag) + ": " + slice.accelerator_type + " is not offered in " +
                                       (zone ? "zone " : "region ") + std::string(location) + "; " +
                                       slice.generation->family + " is in " + Joined(zones) + " (" +
                                       std::string(bypass) + " goes past this list, which can lag Google's)"));
}

}  // namespace tputrain::catalog
