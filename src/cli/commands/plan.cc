#include <charconv>
#include <system_error>

#include <fmt/format.h>

#include "commands/commands.h"
#include "commands/plan_price.h"
#include "commands/prices_common.h"
#include "commands/provision_common.h"
#include "output/output.h"
#include "tputrain/core/text.h"
#include "tputrain/workflow/models.h"

namespace tputrain::cli {
namespace {

struct PlanOptions {
  workflow::ModelChoice model;
  std::string mode;
  std::string accelerator;
  std::string dtype;
  int slices = 0;
  std::string capacity = "on-demand";
  double hours = 0;
};

// The stable JSON contract of `plan --format json`, documented in README.
nlohmann::json PlanToJson(const catalog::SlicePlan& plan, const std::optional<PlanPrice>& price) {
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
      {"price", PlanPriceJson(price)},
  };
  if (plan.mode == catalog::WorkloadMode::kTrain) {
    json["ici"] = {{"fsdp", plan.ici.fsdp}, {"tensor", plan.ici.tensor}};
  }
  return json;
}

void PrintPlanTable(std::ostream& out, const catalog::SlicePlan& plan, const std::optional<PlanPrice>& price) {
  const auto& slice = plan.slice;
  std::vector<std::vector<std::string>> rows = {
      {"model", fmt::format("{} ({}{}{})", plan.model.name,
                            // --params names the model by its size already
                            plan.model.origin == catalog::ModelOrigin::kParameterCount
                                ? std::string()
                                : fmt::format("{:.4g} B parameters, ", plan.model.parameters / 1e9),
                            plan.model.mixture_of_experts()
                                ? fmt::format("{:.4g} B active per token, ", plan.model.active_parameters / 1e9)
                                : std::string(),
                            catalog::ModeName(plan.mode))},
      {"source", plan.model.origin_detail},
      {"memory",
       fmt::format("{:.0f} GB per slice ({}/parameter, {:.0f}% headroom)", plan.memory_gb_per_slice,
                   core::Counted(static_cast<long long>(plan.bytes_per_parameter), "byte"), plan.headroom * 100)},
      {"slice", fmt::format("{} ({} chips, topology {})", slice.accelerator_type, slice.chips, slice.topology)},
      {"slices", std::to_string(plan.slices)},
      {"node pool", fmt::format("{} of {} × {} chips ({})", core::Counted(plan.nodes_per_slice, "node"),
                                slice.machine_type, slice.chips_per_host, slice.generation->gke_accelerator)},
  };
  if (plan.mode == catalog::WorkloadMode::kTrain) {
    rows.push_back(
        {"ici", fmt::format("ici_fsdp_parallelism={} ici_tensor_parallelism={}", plan.ici.fsdp, plan.ici.tensor)});
  }
  for (auto& row : PlanPriceRows(price)) rows.push_back(std::move(row));
  PrintTable(out, {"field", "value"}, rows);
  out << "\nwhy: " << plan.formula << "\n";
}

core::Result<int> RunPlan(const PlanOptions& options, Context& context) {
  catalog::PlanRequest request;
  if (!options.mode.empty()) {
    request.mode = options.mode == "train" ? catalog::WorkloadMode::kTrain : catalog::WorkloadMode::kServe;
  }
  request.accelerator = options.accelerator;
  request.dtype = options.dtype;
  request.slices = options.slices;
  auto plan = workflow::PlanModel(options.model, request);
  if (!plan) return core::Fail(plan.error());
  // Priced where it would run: the location's region. None given, no price (and no network).
  std::optional<PlanPrice> price;
  auto location = LocationOrAll(context);  // checked: a malformed one is a usage error
  if (!location) return core::Fail(location.error());
  if (*location != "-") {
    auto prices = ReadPrices(context);
    if (!prices) return core::Fail(prices.error());
    price = PlanPrice{workflow::PriceSlices(prices->table, plan->slice.generation->family, plan->slice.chips,
                                            plan->slices, *location),
                      std::move(*prices), *catalog::ParseCapacityMode(options.capacity), std::nullopt};
    if (options.hours > 0) price->hours = options.hours;
  }
  PrintResult(context, PlanToJson(*plan, price), [&](std::ostream& out) { PrintPlanTable(out, *plan, price); });
  return core::kExitOk;
}

}  // namespace

void SetupPlanCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<PlanOptions>();
  auto* plan = root.add_subcommand("plan", "Size the smallest TPU slice for a model, and say why");
  plan->add_option("--model", options->model.name,
                   "A model by name: any of MaxText's (tputrain models lists them), or one of tputrain's presets");
  plan->add_option("--params", options->model.parameters, "Or a model of this many parameters: 70b, 1.5t, 350m")
      ->type_name("COUNT");
  plan->add_option("--active-params", options->model.active,
                   "With --params, for a mixture of experts: the parameters one token uses (memory is sized on all)")
      ->type_name("COUNT");
  plan->add_option("--hf-config", options->model.hf_config,
                   "Or a Hugging Face checkpoint's config.json (or its directory): Llama, Mistral, Mixtral, Qwen 2/3, "
                   "Gemma 1/2/3, DeepSeek V2/V3")
      ->type_name("FILE");
  plan->add_option("--mode", options->mode, "train or serve (default: the model's; train for most)")
      ->check(CLI::IsMember({"train", "serve"}));
  plan->add_option("--accelerator", options->accelerator, "TPU generation: v6e, v5e, v5p, v4 or tpu7x");
  plan->add_option("--dtype", options->dtype, "Serving weights: bf16 or int8 (default: the model's)");
  plan->add_option("--slices", options->slices, "Number of slices (default: the model's)")->check(CLI::Range(1, 64));
  plan->add_option("--capacity", options->capacity,
                   "How the slices are had, for their price: on-demand, spot, reservation or flex-start")
      ->check(CLI::IsMember({"on-demand", "spot", "reservation", "flex-start"}))
      ->capture_default_str();
  plan->add_option("--hours", options->hours, "Hours the job runs: an estimate of what it costs")
      ->check(CLI::Validator(
          [](std::string& text) {
            double hours = 0;
            auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), hours);
            const bool ok =
                !text.empty() && ec == std::errc() && end == text.data() + text.size() && hours > 0 && hours <= 1e6;
            return ok ? std::string() : "expected a number of hours above 0 (e.g. 10 or 0.5), got '" + text + "'";
          },
          "HOURS", "HOURS"));
  plan->footer(
      "Examples:\n"
      "  tputrain plan --model llama3-8b --accelerator v6e\n"
      "  tputrain plan --model qwen3-235b-a22b --mode serve\n"
      "  tputrain plan --params 70b --mode serve --dtype int8\n"
      "  tputrain plan --hf-config ./Mixtral-8x7B-v0.1/config.json --format json\n"
      "  tputrain plan --model llama3-8b --location us-east5 --capacity spot --hours 10\n"
      "With --location, the slices are priced from the Cloud Billing Catalog API (see 'tputrain prices').");
  plan->callback([options, &context] { context.outcome = RunPlan(*options, context); });
}

}  // namespace tputrain::cli
