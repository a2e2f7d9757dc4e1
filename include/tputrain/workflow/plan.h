#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/workflow/models.h"
#include "tputrain/workflow/prices.h"
#include "tputrain/workflow/slice_price.h"

// `tputrain plan`: the smallest TPU slice for a model, why, and what it costs where it would run.
namespace tputrain::workflow {

class Root;

struct SlicePlanRequest {
  ModelChoice model;
  std::string mode;  // train or serve; empty: the model's
  std::string accelerator;
  std::string dtype;
  int slices = 0;  // 0: the model's
  std::string capacity = "on-demand";
  double hours = 0;  // how long the job runs, for an estimate; 0: none
};

// What plan says about money: the slices' price each way of buying them, the chosen one first.
struct PlanPrice {
  SlicePrice price;
  Prices prices;  // the table and where it came from
  catalog::CapacityMode capacity = catalog::CapacityMode::kOnDemand;
  std::optional<double> hours;
};

struct PlanOutcome {
  catalog::SlicePlan plan;
  std::optional<PlanPrice> price;  // none when no location is set to price in
};

// The plan first (bad input fails before anything is read), then the configured location
// (checked: a malformed one is a usage error): the slices are priced in its region, from the
// root's prices; no location, no price, and no network.
core::Result<PlanOutcome> PlanSlices(Root& root, const SlicePlanRequest& request);

// `plan --format json`: the stable contract the README documents; `price` is null without one.
nlohmann::json ToJson(const PlanOutcome& outcome);

}  // namespace tputrain::workflow
