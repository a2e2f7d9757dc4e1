// tputrain tpu-vm delete|list|describe|ray-status (Cloud TPU tpu/v2); create is tpu_vm_create.cc.
#include "commands/commands.h"
#include "commands/provision_common.h"
#include "flags/capacity_flags.h"
#include "output/output.h"
#include "tputrain/core/resource_name.h"
#include "tputrain/core/text.h"
#include "tputrain/workflow/reads.h"
#include "tputrain/workflow/tpu_vm_delete.h"
#include "tputrain/workflow/tpu_vm_ray.h"

namespace tputrain::cli {
namespace {

struct TpuVmOptions {
  std::vector<std::string> names;
  ProvisionFlags provision;
};

core::Result<int> RunDelete(const TpuVmOptions& options, Context& context) {
  return RunProvision(context, options.provision, workflow::TpuVmDeletion{options.names}, "tpu-vm delete");
}

core::Result<int> RunRead(const TpuVmOptions& options, Context& context, bool list) {
  const std::string name = list ? "" : options.names.front();
  auto nodes = workflow::ReadTpuVms(context.stack(), {name});
  if (!nodes) return core::Fail(nodes.error());
  if (!list) {
    const auto& node = nodes->front();
    PrintResult(context, node.raw, [&](std::ostream& out) { out << ToYaml(node.raw); });
    if (node.state == "PREEMPTED") {
      context.reporter().Warn("TPU VM " + name +
                              " was preempted: Google reclaimed its Spot capacity. It bills no more but exists "
                              "until deleted ('tputrain tpu-vm delete " +
                              name + "', or 'tputrain cleanup' for a run's)");
    }
    return core::kExitOk;
  }
  nlohmann::json json = nlohmann::json::array();
  std::vector<std::vector<std::string>> rows;
  // Listed across zones (no --zone), a name alone does not say where the VM is.
  auto location = workflow::LocationOrAll(context.stack());
  const bool every_zone = location && *location == "-";
  for (const auto& node : *nodes) {
    json.push_back(node.raw);
    std::vector<std::string> row = {core::LastSegment(node.name)};
    if (every_zone) row.push_back(core::LocationOfName(node.name));
    row.insert(row.end(), {node.accelerator_type, node.runtime_version, node.state});
    rows.push_back(std::move(row));
  }
  std::vector<std::string> headers = {"name", "accelerator_type", "version", "state"};
  if (every_zone) headers.insert(headers.begin() + 1, "zone");
  PrintResult(context, json, [&](std::ostream& out) {
    PrintListTable(context, out, headers, rows, "No TPU VMs in " + workflow::ListedWhere(context.stack()) + ".",
                   {"name"});
  });
  return core::kExitOk;
}

core::Result<int> RunRayStatus(const TpuVmOptions& options, Context& context) {
  auto nodes = workflow::ReadTpuVmRay(context.stack(), {options.names.front()});
  if (!nodes) return core::Fail(nodes.error());
  nlohmann::json json = nlohmann::json::array();
  std::vector<std::vector<std::string>> rows;
  for (const auto& node : *nodes) {
    for (const auto& host : node.hosts) {
      const std::string state(workflow::RayHostStateName(host.state));
      json.push_back({{"node", node.node},
                      {"worker", host.worker},
                      {"state", state},
                      {"ray_version", host.ray_version},
                      {"message", host.message}});
      rows.push_back({node.node, host.worker, state, host.ray_version.empty() ? "-" : host.ray_version,
                      host.message.empty() ? "-" : host.message});
    }
  }
  PrintResult(context, json, [&](std::ostream& out) {
    PrintTable(out, {"node", "worker", "state", "ray", "message"}, rows);
  });
  return core::kExitOk;
}

}  // namespace

void SetupTpuVmCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<TpuVmOptions>();
  auto* tpu_vm = root.add_subcommand("tpu-vm", "Cloud TPU VMs");
  tpu_vm->require_subcommand(1);

  SetupTpuVmCreateCommand(*tpu_vm, context);

  auto* remove = tpu_vm->add_subcommand("delete", "Delete TPU VM(s), or the slices made with --num-slices NAME");
  remove->add_option("names", options->names, "TPU VM name(s)")->required();
  AddProvisionFlags(remove, options->provision);
  AddYesFlag(remove, options->provision.yes);
  remove->footer("Example:\n  tputrain tpu-vm delete v5p-node --zone us-east5-a --yes");
  remove->callback([options, &context] { context.outcome = RunDelete(*options, context); });

  auto* describe = tpu_vm->add_subcommand("describe", "Show a TPU VM");
  describe->add_option("names", options->names, "TPU VM name")->required()->expected(1);
  describe->footer("Example:\n  tputrain tpu-vm describe v5p-node --zone us-east5-a --format json");
  describe->callback([options, &context] { context.outcome = RunRead(*options, context, false); });

  auto* ray_status = tpu_vm->add_subcommand("ray-status", "Each host's Ray, as it reported it (guest attributes)");
  ray_status->add_option("names", options->names, "TPU VM name")->required()->expected(1);
  ray_status->footer("Example:\n  tputrain tpu-vm ray-status ray-tpu --zone us-east5-a");
  ray_status->callback([options, &context] { context.outcome = RunRayStatus(*options, context); });

  auto* list = tpu_vm->add_subcommand("list", "List TPU VMs (every zone unless --zone)");
  list->footer("Example:\n  tputrain tpu-vm list --zone us-east5-a");
  list->callback([options, &context] { context.outcome = RunRead(*options, context, true); });

  SetupTpuVmTunnelCommand(*tpu_vm, context);
  SetupTpuVmExecCommand(*tpu_vm, context);
}

}  // namespace tputrain::cli
