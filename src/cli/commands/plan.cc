#include <charconv>
#include <system_error>

#include <fmt/format.h>

#include "commands/commands.h"
#include "output/output.h"
#include "output/plan_price.h"
#include "tputrain/core/text.h"
#include "tputrain/workflow/plan.h"

namespace tputrain::cli {
namespace {

void PrintPlanTable(std::ostream& out, const workflow::PlanOutcome& outcome) {
  const auto& plan = outcome.plan;
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
  for (auto& row : PlanPriceRows(outcome.price)) rows.push_back(std::move(row));
  PrintTable(out, {"field", "value"}, rows);
  out << "\nwhy: " << plan.formula << "\n";
}

core::Result<int> RunPlan(const workflow::SlicePlanRequest& request, Context& context) {
  auto outcome = workflow::PlanSlices(context.stack(), request);
  if (!outcome) return core::Fail(outcome.error());
  PrintResult(context, workflow::ToJson(*outcome), [&](std::ostream& out) { PrintPlanTable(out, *outcome); });
  return core::kExitOk;
}

}  // namespace

void SetupPlanCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<workflow::SlicePlanRequest>();
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
