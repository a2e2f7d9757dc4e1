#include "tputrain/gcp/billing/tpu_skus.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <tuple>

namespace tputrain::gcp::billing {
namespace {

struct Marker {
  const char* text;        // in the description, case as written
  const char* generation;  // tputrain's family name
  bool needs_pod;          // v4 has pod SKUs only; a v4 description without "Pod" is not one
  int chips_per_unit;      // the SKU's unit: one chip, or v4's 8 TensorCores = 4 chips
};

constexpr Marker kMarkers[] = {
    {"TpuV6e", "v6e", false, 1},
    {"TpuV5p", "v5p", false, 1},
    {"TpuV5e", "v5e", false, 1},
    {"Tpu-v4", "v4", true, 4},
};

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

bool Excluded(const std::string& description) {
  const std::string lower = Lower(description);
  for (const char* word : {"reserved", "custom", "premium", "sole tenancy"}) {
    if (lower.find(word) != std::string::npos) return true;
  }
  return false;
}

std::optional<TpuPriceKind> KindOf(const Sku& sku) {
  if (sku.usage_type == "Commit1Yr") return TpuPriceKind::kCommit1Yr;
  if (sku.usage_type == "Commit3Yr") return TpuPriceKind::kCommit3Yr;
  if (sku.usage_type == "Preemptible") return TpuPriceKind::kSpot;
  if (sku.usage_type != "OnDemand") return std::nullopt;
  return sku.description.find("Preemptible") != std::string::npos ? TpuPriceKind::kSpot : TpuPriceKind::kOnDemand;
}

}  // namespace

std::vector<TpuSkuPrice> TpuPricesFromSkus(const std::vector<Sku>& skus) {
  std::vector<TpuSkuPrice> prices;
  std::set<std::tuple<std::string, std::string, TpuPriceKind>> seen;
  for (const auto& sku : skus) {
    if (sku.resource_family != "Compute" || !sku.unit_price || *sku.unit_price < 0 || sku.usage_unit != "h") continue;
    if (Excluded(sku.description)) continue;
    auto kind = KindOf(sku);
    if (!kind) continue;
    const Marker* marker = nullptr;
    for (const auto& candidate : kMarkers) {
      if (sku.description.find(candidate.text) != std::string::npos) marker = &candidate;
    }
    if (marker == nullptr) continue;
    if (marker->needs_pod != (sku.description.find("Pod") != std::string::npos)) continue;
    const double per_chip_hour = *sku.unit_price / marker->chips_per_unit;
    if (!std::isfinite(per_chip_hour) || per_chip_hour > kMaxChipHourPrice) continue;
    for (const auto& region : sku.service_regions) {
      if (!seen.insert({marker->generation, region, *kind}).second) continue;
      prices.push_back({marker->generation, region, *kind, per_chip_hour, sku.currency, sku.sku_id});
    }
  }
  return prices;
}

}  // namespace tputrain::gcp::billing
