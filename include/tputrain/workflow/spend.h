#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/catalog/prices.h"
#include "tputrain/state/ledger.h"
#include "tputrain/workflow/prices.h"

// What a run's TPU resources have cost so far and cost an hour now: an estimate, node-hours ×
// the list price recorded when each was created, before discounts, credits and taxes. Only what
// the run owns and created counts; the billed interval is the entry's ready_at to deleted_at
// (or now). A GKE cluster the run made adds GKE's flat cluster fee for the same interval.
namespace tputrain::workflow {

// What a TPU resource's entry records at create, under details["cost"].
struct CostRecord {
  catalog::CapacityMode capacity = catalog::CapacityMode::kOnDemand;
  std::string zone;
  int chips = 0;
  std::optional<double> per_chip_hour;  // none: the table had no price for it
  std::string currency = "USD";
  std::string source;  // the price table's source
  std::string as_of;
  std::string origin;  // PriceOriginName
};

nlohmann::json ToJson(const CostRecord& record);
std::optional<CostRecord> CostRecordFromJson(const nlohmann::json& details);

// The record for `chips` of `generation` in `zone`, priced from `prices` (null: no price known).
CostRecord MakeCostRecord(const Prices* prices, const std::string& generation, catalog::CapacityMode capacity,
                          const std::string& zone, int chips);

struct ResourceSpend {
  state::ResourceKind kind = state::ResourceKind::kUnknown;
  std::string name;
  CostRecord cost;
  double hours = 0;                    // billed so far
  std::optional<double> spent;         // none when the rate is unknown
  std::optional<double> per_hour_now;  // 0 once deleted or not yet ready
  bool cluster_fee = false;            // a cluster's flat fee, not chips × a rate
};

struct RunSpend {
  std::string currency = "USD";
  std::vector<ResourceSpend> resources;
  double spent = 0;          // of the resources whose rate is known
  double per_hour_now = 0;   // the same
  bool complete = true;      // false when some resource's rate is unknown
  bool upper_bound = false;  // some resource is priced above what it bills (flex-start)
  double cluster_fees = 0;   // GKE's cluster fee so far, included in `spent`
};

RunSpend SpendOf(const state::Ledger& ledger, std::chrono::system_clock::time_point now);

// What a table prints, each line within 80 columns: "spend: $12.34 so far, $43.20/h now" and
// the caveat below it.
std::string SpendLine(const RunSpend& spend);
// cleanup's last line of a run: "run ID: TPU spend $12.34 (estimate at list price)".
std::string TotalLine(const std::string& run_id, const RunSpend& spend);
nlohmann::json ToJson(const RunSpend& spend);

// "$12.34", "$0.0512": cents, or four places under a dollar.
std::string FormatMoney(double amount, const std::string& currency);

}  // namespace tputrain::workflow
