#include "tputrain/workflow/spend.h"

#include <cstdio>

#include "tputrain/core/gcp_location.h"
#include "tputrain/core/json_fields.h"
#include "tputrain/core/timestamp.h"

namespace tputrain::workflow {

nlohmann::json ToJson(const CostRecord& record) {
  return {{"capacity", catalog::CapacityModeName(record.capacity)},
          {"zone", record.zone},
          {"chips", record.chips},
          {"per_chip_hour", record.per_chip_hour ? nlohmann::json(*record.per_chip_hour) : nlohmann::json(nullptr)},
          {"currency", record.currency},
          {"source", record.source},
          {"as_of", record.as_of},
          {"origin", record.origin}};
}

std::optional<CostRecord> CostRecordFromJson(const nlohmann::json& details) {
  if (!details.is_object()) return std::nullopt;
  auto it = details.find("cost");
  if (it == details.end() || !it->is_object()) return std::nullopt;
  const auto& cost = *it;
  CostRecord record;
  auto capacity = catalog::ParseCapacityMode(cost.value("capacity", ""));
  auto chips = cost.find("chips");
  if (!capacity || chips == cost.end() || !chips->is_number_integer() || chips->get<int64_t>() <= 0 ||
      chips->get<int64_t>() > 1'000'000) {
    return std::nullopt;
  }
  record.capacity = *capacity;
  record.chips = static_cast<int>(chips->get<int64_t>());
  auto rate = cost.find("per_chip_hour");
  if (rate != cost.end() && rate->is_number() && rate->get<double>() >= 0) record.per_chip_hour = rate->get<double>();
  auto text = [&](const char* key) { return core::StringAt(cost, key); };
  record.zone = text("zone");
  record.currency = text("currency").empty() ? "USD" : text("currency");
  record.source = text("source");
  record.as_of = text("as_of");
  record.origin = text("origin");
  return record;
}

CostRecord MakeCostRecord(const Prices* prices, const std::string& generation, catalog::CapacityMode capacity,
                          const std::string& zone, int chips) {
  CostRecord record;
  record.capacity = capacity;
  record.zone = zone;
  record.chips = chips;
  if (prices == nullptr) return record;
  record.currency = prices->table.currency;
  record.source = prices->table.source;
  record.as_of = prices->table.as_of;
  record.origin = std::string(PriceOriginName(prices->origin));
  record.per_chip_hour = prices->table.PerChipHour(generation, core::RegionOf(zone), catalog::BilledAs(capacity));
  return record;
}

namespace {

// A GKE cluster bills its flat fee from the moment it is RUNNING, as a TPU does from READY.
std::optional<CostRecord> ClusterFeeRecord(const state::LedgerEntry& entry) {
  if (entry.kind != state::ResourceKind::kCluster) return std::nullopt;
  CostRecord record;
  record.currency = std::string(catalog::kGkeClusterFee.currency);
  record.source = std::string(catalog::kGkeClusterFee.source);
  record.origin = "published";
  return record;
}

}  // namespace

RunSpend SpendOf(const state::Ledger& ledger, std::chrono::system_clock::time_point now) {
  RunSpend spend;
  for (const auto& entry : ledger.entries) {
    if (!entry.owned) continue;
    auto fee = ClusterFeeRecord(entry);
    auto cost = fee ? fee : CostRecordFromJson(entry.details);
    if (!cost) continue;
    ResourceSpend resource{entry.kind, entry.name, *cost, 0, std::nullopt, std::nullopt, fee.has_value()};
    if (catalog::PricedAsUpperBound(cost->capacity)) spend.upper_bound = true;
    auto ready = core::ParseTimestamp(entry.ready_at);
    auto deleted = core::ParseTimestamp(entry.deleted_at);
    // A preempted Spot VM stops billing though it still exists until deleted.
    auto preempted = core::ParseTimestamp(entry.preempted_at);
    const bool billing = ready && !deleted && !preempted && entry.state != state::EntryState::kDeleted &&
                         entry.state != state::EntryState::kPreempted;
    if (ready) {
      const auto end = preempted ? *preempted : deleted ? *deleted : (billing ? now : *ready);
      resource.hours = std::max(0.0, std::chrono::duration<double, std::ratio<3600>>(end - *ready).count());
    }
    if (fee) {
      resource.spent = catalog::kGkeClusterFee.per_hour * resource.hours;
      resource.per_hour_now = billing ? catalog::kGkeClusterFee.per_hour : 0.0;
      spend.spent += *resource.spent;
      spend.cluster_fees += *resource.spent;
      spend.per_hour_now += *resource.per_hour_now;
    } else if (cost->per_chip_hour) {
      const double per_hour = *cost->per_chip_hour * cost->chips;
      resource.spent = per_hour * resource.hours;
      resource.per_hour_now = billing ? per_hour : 0.0;
      spend.spent += *resource.spent;
      spend.per_hour_now += *resource.per_hour_now;
      spend.currency = cost->currency;
    } else {
      spend.complete = false;
    }
    spend.resources.push_back(std::move(resource));
  }
  return spend;
}

std::string FormatMoney(double amount, const std::string& currency) {
  const std::string symbol = currency == "USD" ? "$" : currency + " ";
  char text[64];
  std::snprintf(text, sizeof(text), amount != 0 && amount < 1 && amount > -1 ? "%.4f" : "%.2f", amount);
  return symbol + text;
}

std::string SpendLine(const RunSpend& spend) {
  std::string line = "spend: " + FormatMoney(spend.spent, spend.currency) + " so far, " +
                     FormatMoney(spend.per_hour_now, spend.currency) + "/h now\n" +
                     "  (estimates: node-hours × list price, before discounts and taxes)";
  if (!spend.complete) line += "\n  (a TPU resource without a known price is not counted)";
  if (spend.upper_bound) line += "\n  (flex-start priced at on-demand and as if its nodes ran: an upper bound)";
  if (spend.cluster_fees > 0) {
    line += "\n  (with GKE's cluster fee, " + FormatMoney(catalog::kGkeClusterFee.per_hour, spend.currency) +
            "/h; one zonal cluster per account is free)";
  }
  return line;
}

std::string TotalLine(const std::string& run_id, const RunSpend& spend) {
  std::string line = "run " + run_id + (spend.cluster_fees > 0 ? ": spend " : ": TPU spend ") +
                     FormatMoney(spend.spent, spend.currency) + " (estimate at list price)";
  if (!spend.complete) line += ", some unpriced";
  if (spend.upper_bound) line += ", at most";
  return line;
}

nlohmann::json ToJson(const RunSpend& spend) {
  nlohmann::json resources = nlohmann::json::array();
  for (const auto& resource : spend.resources) {
    resources.push_back(
        {{"kind", state::KindName(resource.kind)},
         {"name", resource.name},
         {"cost", resource.cluster_fee ? nlohmann::json{{"cluster_fee_per_hour", catalog::kGkeClusterFee.per_hour},
                                                        {"source", resource.cost.source}}
                                       : ToJson(resource.cost)},
         {"hours", resource.hours},
         {"spent", resource.spent ? nlohmann::json(*resource.spent) : nlohmann::json(nullptr)},
         {"per_hour_now", resource.per_hour_now ? nlohmann::json(*resource.per_hour_now) : nlohmann::json(nullptr)}});
  }
  return {{"currency", spend.currency},
          {"spent", spend.spent},
          {"per_hour_now", spend.per_hour_now},
          {"complete", spend.complete},
          {"upper_bound", spend.upper_bound},
          {"cluster_fees", spend.cluster_fees},
          {"estimate", "node-hours × list price recorded at create, before discounts, credits and taxes"},
          {"resources", resources}};
}

}  // namespace tputrain::workflow
