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

// What every provisioning command shares: the run ledger flags, --async/--timeout, building
// the workflow's environment, --dry-run printing, and the summary (and, for the deletes among
// them, confirm_delete.h's question).
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

// core::ParseDuration's grammar ("90s", "30m", "1h30m", bare seconds); empty: no limit.
core::Result<std::optional<std::chrono::milliseconds>> ParseTimeoutFlag(const std::string& flag,
                                                                        const std::string& text);

// Prints what a command made; by default, the outcomes as a table or JSON.
using ProvisionPrinter = std::function<void(const workflow::ProvisionResult&)>;

// Plans `action` (workflow::PlanProvision), asks a delete's question (`command` names it and its
// --yes), then runs it (workflow::Provision) and prints the requests under --dry-run, else what
// was made (through `print` when given).
core::Result<int> RunProvision(Context& context, const ProvisionFlags& flags, workflow::ProvisionAction action,
                               const std::string& command = "", const ProvisionPrinter& print = nullptr);

core::Result<std::string> RequireSetting(Context& context, const std::string& key);

// The configured location, checked as RequireSetting checks it; "-" when none is set (every
// location, as the list APIs spell it).
core::Result<std::string> LocationOrAll(Context& context);
// Where a list was read, for the line that says it is empty ("No clusters in us-central1."): the
// configured location, else "project P" (every location was listed).
std::string ListedWhere(Context& context);

// Cluster `name` (given as `field`: NAME or --cluster) in the configured project and location,
// each checked against the API's pattern (a usage error names what is missing or malformed).
core::Result<gcp::container::ClusterRef> ClusterRefOf(Context& context, const std::string& name,
                                                      std::string_view field);

// The node pool flags shared by `cluster create --tpu-type` and `nodepool create` (gcloud's
// names), bound to the request workflow::NodePoolsFor checks.
void AddPoolFlags(CLI::App* command, workflow::TpuPoolRequest& flags, bool with_machine_type);
// --skip-zone-check: past the zone catalog.
void AddSkipZoneCheckFlag(CLI::App* command, bool& skip);

// A bucket as given (NAME or gs://NAME), without the scheme.
std::string BucketName(const std::string& name);

}  // namespace tputrain::cli
