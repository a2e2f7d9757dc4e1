#include "commands/provision_common.h"

#include "flags/capacity_flags.h"
#include "output/output.h"
#include "output/planned_requests.h"
#include "output/resource_cells.h"
#include "tputrain/workflow/provision_requests.h"
#include "tputrain/workflow/reads.h"
#include "tputrain/workflow/root.h"

namespace tputrain::cli {
namespace {

void PrintOutcomes(Context& context, const std::string& run_id, const std::vector<workflow::Outcome>& outcomes) {
  nlohmann::json json = {{"run", run_id}, {"resources", workflow::ToJson(outcomes)}};
  PrintResult(context, json, [&](std::ostream& out) {
    const bool wide = context.global.wide();
    std::vector<std::vector<std::string>> rows = OutcomeRows(outcomes, wide);
    for (size_t i = 0; i < rows.size(); ++i) rows[i].push_back(OperationCell(outcomes[i].operation, wide));
    PrintTable(out, {"kind", "name", "location", "result", "operation"}, rows, kResourceColumns);
    if (!run_id.empty()) out << "run: " << run_id << "\n";
  });
}

}  // namespace

void AddProvisionFlags(CLI::App* command, ProvisionFlags& flags, bool waits) {
  command->add_option("--run", flags.run_id,
                      "Run ID to record resources under (else TPUTRAIN_RUN, else the current run)");
  command->add_option("--state-dir", flags.state_dir, "Run ledger directory (default: $XDG_STATE_HOME/tputrain)")
      ->type_name("DIR");
  if (waits) {
    command->add_flag("--async", flags.async, "Return once each operation has started");
    command->add_option("--timeout", flags.timeout, "Stop waiting after this long (e.g. 30m); the operation goes on");
  }
  command->add_flag("--enable-apis", flags.enable_apis,
                    "Enable an API the project has not enabled (SERVICE_DISABLED) and carry on");
}

void AddRecreateFlag(CLI::App* command, ProvisionFlags& flags) {
  command->add_flag("--recreate-unusable", flags.recreate_unusable,
                    "If it exists in ERROR (e.g. after a stockout), delete it and create it again");
}

core::Result<int> RunProvision(Context& context, const ProvisionFlags& flags, workflow::ProvisionAction action,
                               const std::string& command, const ProvisionPrinter& print) {
  auto plan = workflow::PlanProvision(context.stack(), flags, std::move(action));
  if (!plan) return core::Fail(plan.error());
  if (!plan->question.empty()) {
    auto confirmed = ConfirmDelete(context, flags.yes, command, plan->question);
    if (!confirmed) return core::Fail(confirmed.error());
    if (!*confirmed) return NothingDeleted(context);
  }
  for (const auto& note : plan->notes) context.reporter().Info(note);
  auto result = workflow::Provision(context.stack(), flags, *plan);
  if (!result) return core::Fail(result.error());
  if (result->dry_run) {
    PrintPlannedRequests(context, result->planned);
  } else if (print) {
    print(*result);
  } else {
    PrintOutcomes(context, result->run_id, result->outcomes);
  }
  return core::kExitOk;
}

void AddPoolFlags(CLI::App* command, workflow::TpuPoolRequest& flags, bool with_machine_type) {
  command->add_option("--tpu-type", flags.tpu_type,
                      "TPU slice type (v6e-16, v5litepod-32, v5p-8, v6e-4x4): machine type, topology and node count");
  if (with_machine_type) {
    command->add_option("--machine-type", flags.machine_type, "GKE machine type of the pool (ct6e-standard-4t)");
    command->add_option("--num-nodes", flags.num_nodes,
                        "Nodes (hosts); derived from the TPU topology unless given (a CPU pool: 1)");
    command->add_option("--disk-size", flags.disk_size,
                        "Boot disk of each node: 3000 (GB), 3000GB, 3TB (default 100GB)");
    command->add_option("--scopes", flags.scopes, "OAuth scopes of the nodes (cloud-platform, ...)")->delimiter(',');
  }
  command->add_option("--tpu-topology", flags.tpu_topology, "TPU topology (4x4, 2x2x1)");
  command->add_option("--num-slices", flags.num_slices, "Node pools to create, one per slice (multislice)")
      ->check(CLI::Range(1, 64));
  command->add_option("--placement-type", flags.placement_type, "COMPACT placement")->check(CLI::IsMember({"COMPACT"}));
  command->add_option("--workload-metadata", flags.workload_metadata, "GCE_METADATA or GKE_METADATA")
      ->check(CLI::IsMember({"GCE_METADATA", "GKE_METADATA"}));
  command->add_option("--threads-per-core", flags.threads_per_core, "Threads per core (1 or 2)")
      ->check(CLI::Range(1, 2));
  command->add_option("--node-locations", flags.node_locations, "Zones of the nodes")->delimiter(',');
  command->add_option("--placement-policy", flags.placement_policy,
                      "tpu7x multi-host: an existing workload policy to place the slice (default: the run makes one)");
  command->add_option("--node-version", flags.node_version, "GKE version of the nodes (tpu7x pools: the cluster's)");
  AddSkipZoneCheckFlag(command, flags.skip_zone_check);
  AddCapacityFlags(command, flags.capacity, true);
}

void AddSkipZoneCheckFlag(CLI::App* command, bool& skip) {
  command->add_flag(workflow::kSkipZoneCheckFlag, skip,
                    "Create even where tputrain's zone catalog says the TPU type is not offered (it can lag Google's)");
}

}  // namespace tputrain::cli
