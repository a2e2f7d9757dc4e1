// tputrain services enable|list (Service Usage), as gcloud services.
#include "tputrain/workflow/services.h"
#include "commands/commands.h"
#include "commands/provision_common.h"
#include "output/output.h"
#include "output/planned_requests.h"
#include "tputrain/workflow/reads.h"

namespace tputrain::cli {
namespace {

struct ServicesOptions {
  std::vector<std::string> services;
  bool available = false;
  std::string timeout;
};

core::Result<int> RunEnable(const ServicesOptions& options, Context& context) {
  auto enabled = workflow::EnableServices(context.stack(), {options.services, options.timeout, context.global.dry_run});
  if (!enabled) return core::Fail(enabled.error());
  if (context.global.dry_run) {
    PrintPlannedRequests(context, enabled->planned);
    return core::kExitOk;
  }
  PrintResult(context, workflow::ToJson(enabled->changes), [&](std::ostream& out) {
    for (const auto& change : enabled->changes) {
      out << change.service << ": " << (change.was_enabled ? "already enabled" : "enabled") << "\n";
    }
  });
  return core::kExitOk;
}

core::Result<int> RunList(const ServicesOptions& options, Context& context) {
  auto services = workflow::ReadServices(context.stack(), {options.available});
  if (!services) return core::Fail(services.error());
  std::vector<std::vector<std::string>> rows;
  for (const auto& service : *services) {
    rows.push_back({service.name, service.title, std::string(workflow::ServiceStateName(service))});
  }
  PrintResult(context, workflow::ToJson(*services), [&](std::ostream& out) {
    PrintListTable(context, out, {"name", "title", "state"}, rows,
                   options.available ? "No services available." : "No services enabled.");
  });
  return core::kExitOk;
}

}  // namespace

void SetupServicesCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<ServicesOptions>();
  auto* services = root.add_subcommand("services", "Google APIs of the project (Service Usage), as gcloud services");
  services->require_subcommand(1);
  auto* enable = services->add_subcommand("enable", "Enable APIs (those already enabled are left as they are)");
  enable->add_option("SERVICE", options->services, "container.googleapis.com, tpu.googleapis.com, ... (or container)")
      ->required();
  enable->add_option("--timeout", options->timeout, "Stop waiting after this long (e.g. 5m)");
  enable->footer(
      "Example:\n  tputrain services enable container.googleapis.com tpu.googleapis.com --project my-project");
  enable->callback([options, &context] { context.outcome = RunEnable(*options, context); });
  auto* list = services->add_subcommand("list", "List the enabled APIs (every API with --available)");
  list->add_flag("--available", options->available, "Every API the project could enable, with its state");
  list->footer("Example:\n  tputrain services list --project my-project --format json");
  list->callback([options, &context] { context.outcome = RunList(*options, context); });
}

}  // namespace tputrain::cli
