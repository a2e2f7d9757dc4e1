#include "tputrain/workflow/plan.h"

#include "tputrain/workflow/reads.h"
#include "tputrain/workflow/root.h"

namespace tputrain::workflow {
namespace {

std::string Kind(catalog::PriceKind kind) { return std::string(catalog::PriceKindKey(kind)); }

nlohmann::json PriceJson(const std::optional<PlanPrice>& plan) {
  if (!plan) return nullptr;
  const auto& price = plan->price;
  nlohmann::json per_chip_hour = nlohmann::json::object();
  nlohmann::json per_hour = nlohmann::json::object();
  for (const auto& [kind, rate] : price.per_chip_hour) {
    per_chip_hour[Kind(kind)] = rate;
    per_hour[Kind(kind)] = *price.PerHour(kind);
  }
  const auto chosen = price.PerHour(catalog::BilledAs(plan->capacity));
  nlohmann::json estimate = nullptr;
  if (plan->hours && chosen) estimate = *chosen * *plan->hours;
  return {{"currency", price.currency},
          {"region", price.region},
          {"capacity", catalog::CapacityModeName(plan->capacity)},
          {"billed_as", Kind(catalog::BilledAs(plan->capacity))},
          {"upper_bound", catalog::PricedAsUpperBound(plan->capacity)},
          {"chips", price.chips * price.slices},
          {"per_chip_hour", per_chip_hour},
          {"per_hour", per_hour},
          {"hours", plan->hours ? nlohmann::json(*plan->hours) : nlohmann::json(nullptr)},
          {"estimate", estimate},
          {"gke_cluster_fee_per_hour", catalog::kGkeClusterFee.per_hour},
          {"source", plan->prices.table.source},
          {"as_of", plan->prices.table.as_of},
          {"origin", PriceOriginName(plan->prices.origin)}};
}

}  // namespace

core::Result<PlanOutcome> PlanSlices(Root& root, const SlicePlanRequest& request) {
  const auto capacity = catalog::ParseCapacityMode(request.capacity);
  if (!capacity) {
    return core::Fail(core::Error::Usage("--capacity: expected on-demand, spot, reservation or flex-start, got '" +
                                         request.capacity + "'"));
  }
  catalog::PlanRequest sizing;
  if (!request.mode.empty()) {
    sizing.mode = request.mode == "train" ? catalog::WorkloadMode::kTrain : catalog::WorkloadMode::kServe;
  }
  sizing.accelerator = request.accelerator;
  sizing.dtype = request.dtype;
  sizing.slices = request.slices;
  auto plan = PlanModel(request.model, sizing);
  if (!plan) return core::Fail(plan.error());
  PlanOutcome outcome{std::move(*plan), std::nullopt};
  auto settings = root.Settings();
  if (!settings) return core::Fail(settings.error());
  auto location = LocationOrAll(*settings);
  if (!location) return core::Fail(location.error());
  if (*location == "-") return outcome;
  auto prices = ReadTpuPrices(root);
  if (!prices) return core::Fail(prices.error());
  const auto& slice = outcome.plan.slice;
  outcome.price =
      PlanPrice{PriceSlices(prices->table, slice.generation->family, slice.chips, outcome.plan.slices, *location),
                std::move(*prices), *capacity, std::nullopt};
  if (request.hours > 0) outcome.price->hours = request.hours;
  return outcome;
}

nlohmann::json ToJson(const PlanOutcome& outcome) {
  const auto& plan = outcome.plan;
  const auto& slice = plan.slice;
  nlohmann::json json = {
      {"model", plan.model.name},
      {"origin", catalog::OriginName(plan.model.origin)},
      {"source", plan.model.origin_detail},
      {"mode", catalog::ModeName(plan.mode)},
      {"dtype", plan.dtype},
      {"parameters", plan.model.parameters},
      {"active_parameters", plan.model.active_parameters},
      {"mixture_of_experts", plan.model.mixture_of_experts()},
      {"bytes_per_parameter", plan.bytes_per_parameter},
      {"headroom", plan.headroom},
      {"memory_gb_per_slice", plan.memory_gb_per_slice},
      {"memory_gb", plan.memory_gb},
      {"min_chips_per_slice", plan.min_chips_per_slice},
      {"generation", slice.generation->family},
      {"accelerator_type", slice.accelerator_type},
      {"topology", slice.topology},
      {"chips_per_slice", slice.chips},
      {"slices", plan.slices},
      {"hosts_per_slice", slice.hosts},
      {"chips_per_host", slice.chips_per_host},
      {"nodes_per_slice", plan.nodes_per_slice},
      {"machine_type", slice.machine_type},
      {"gke_accelerator", slice.generation->gke_accelerator},
      {"hbm_gb_per_chip", slice.generation->hbm_gb_per_chip},
      {"peak_bf16_tflops_per_chip", slice.generation->peak_bf16_tflops_per_chip},
      {"ici", nullptr},
      {"formula", plan.formula},
      {"price", PriceJson(outcome.price)},
  };
  if (plan.mode == catalog::WorkloadMode::kTrain) {
    json["ici"] = {{"fsdp", plan.ici.fsdp}, {"tensor", plan.ici.tensor}};
  }
  return json;
}

}  // namespace tputrain::workflow
