#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "confirm_delete.h"
#include "tputrain/cli/context.h"
#include "tputrain/workflow/node_pools.h"
#include "tputrain/workflow/provision_command.h"
#include "tputrain/workflow/reads.h"

// What every provisioning command shares: the run ledger flags, --async/--timeout, the pool
// flags, asking a delete's question (confirm_delete.h), and printing the --dry-run requests or
// the summary; the flow itself is workflow::PlanProvision and workflow::Provision.
namespace tputrain::cli {

// The run flags every provisioning command shares (workflow::ProvisionRunFlags), and -y/--yes on
// the destructive ones.
struct ProvisionFlags : workflow::ProvisionRunFlags {
  bool yes = false;
};

void AddProvisionFlags(CLI::App* command, ProvisionFlags& flags, bool waits = true);

// --recreate-unusable on creates of resources that can be left in ERROR (clusters, node pools,
// TPU VMs): delete such a one and create it again rather than report it.
void AddRecreateFlag(CLI::App* command, ProvisionFlags& flags);

// Prints what a command made; by default, the outcomes as a table or JSON.
using ProvisionPrinter = std::function<void(const workflow::ProvisionResult&)>;

// Plans `action` (workflow::PlanProvision), asks a delete's question (`command` names it and its
// --yes), then runs it (workflow::Provision) and prints the requests under --dry-run, else what
// was made (through `print` when given).
core::Result<int> RunProvision(Context& context, const ProvisionFlags& flags, workflow::ProvisionAction action,
                               const std::string& command = "", const ProvisionPrinter& print = nullptr);

// The node pool flags shared by `cluster create --tpu-type` and `nodepool create` (gcloud's
// names), bound to the request workflow::NodePoolsFor checks.
void AddPoolFlags(CLI::App* command, workflow::TpuPoolRequest& flags, bool with_machine_type);
// --skip-zone-check: past the zone catalog.
void AddSkipZoneCheckFlag(CLI::App* command, bool& skip);

}  // namespace tputrain::cli
