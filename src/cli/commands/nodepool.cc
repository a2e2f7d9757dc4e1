// tputrain nodepool create|delete|list|describe.
#include <set>

#include "commands/commands.h"
#include "commands/provision_common.h"
#include "commands/ttl_flag.h"
#include "flags/capacity_flags.h"
#include "output/output.h"
#include "tputrain/workflow/capacity.h"
#include "tputrain/workflow/provision_requests.h"
#include "tputrain/workflow/reads.h"

namespace tputrain::cli {
namespace {

struct NodePoolOptions {
  std::string name;
  std::string cluster;
  workflow::TpuPoolRequest pool;
  workflow::FailoverFlags failover;
  ProvisionFlags provision;
};

core::Result<int> RunNodePoolCreate(const NodePoolOptions& options, Context& context) {
  return RunProvision(context, options.provision,
                      workflow::NodePoolCreation{options.cluster, options.name, options.pool, options.failover});
}

core::Result<int> RunNodePoolDelete(const NodePoolOptions& options, Context& context) {
  return RunProvision(context, options.provision, workflow::NodePoolDeletion{options.cluster, options.name},
                      "nodepool delete");
}

// The zones a pool's nodes are in ("" when it names none: the cluster's).
std::string ZonesOf(const gcp::container::NodePool& pool) {
  std::string zones;
  for (const auto& zone : pool.locations) zones += (zones.empty() ? "" : ",") + zone;
  return zones;
}

core::Result<int> RunNodePoolRead(const NodePoolOptions& options, Context& context, bool list) {
  auto pools = workflow::ReadNodePools(context.stack(), {options.cluster, list ? "" : options.name});
  if (!pools) return core::Fail(pools.error());
  if (!list) {
    const auto& raw = pools->front().raw;
    PrintResult(context, raw, [&](std::ostream& out) { out << ToYaml(raw); });
    return core::kExitOk;
  }
  nlohmann::json json = nlohmann::json::array();
  std::vector<std::vector<std::string>> rows;
  // A regional cluster's pools may stand in different zones: then each says where.
  std::set<std::string> zones;
  for (const auto& pool : *pools) zones.insert(ZonesOf(pool));
  const bool spans_zones = zones.size() > 1;
  for (const auto& pool : *pools) {
    json.push_back(pool.raw);
    std::vector<std::string> row = {pool.name};
    if (spans_zones) row.push_back(ZonesOf(pool));
    row.insert(row.end(), {pool.machine_type, pool.tpu_topology, std::to_string(pool.node_count),
                           std::string(catalog::CapacityModeName(
                               workflow::PoolCapacityMode(pool.spot, !pool.reservation.empty(), pool.flex_start))),
                           pool.status});
    rows.push_back(std::move(row));
  }
  std::vector<std::string> headers = {"name", "machine_type", "tpu_topology", "nodes", "capacity", "status"};
  if (spans_zones) headers.insert(headers.begin() + 1, "zones");
  PrintResult(context, json, [&](std::ostream& out) {
    PrintListTable(context, out, headers, rows, "No node pools in cluster " + options.cluster + ".");
  });
  return core::kExitOk;
}

}  // namespace

void SetupNodePoolCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<NodePoolOptions>();
  auto* nodepool = root.add_subcommand("nodepool", "GKE node pools (TPU slices, CPU pools)");
  nodepool->require_subcommand(1);

  auto* create = nodepool->add_subcommand("create", "Create TPU slice node pool(s), several at once, or a CPU pool");
  create->add_option("name", options->name, "Node pool name (NAME-0, NAME-1, ... with --num-slices)")->required();
  create->add_option("--cluster", options->cluster, "Cluster")->required();
  AddPoolFlags(create, options->pool, /*with_machine_type=*/true);
  AddFailoverFlags(create, options->failover,
                   "On a stockout, try these zones of the cluster's region in turn; auto: those that offer the type");
  AddProvisionFlags(create, options->provision);
  AddRecreateFlag(create, options->provision);
  AddTtlFlag(create, options->provision);
  create->footer(
      "Examples:\n"
      "  tputrain nodepool create v6e-16 --cluster ray-tpu --location us-east5-b --tpu-type v6e-16\n"
      "  tputrain nodepool create tpu --cluster saxml --location us-west4 --machine-type ct5lp-hightpu-4t \\\n"
      "      --tpu-topology 4x8 --num-slices 2\n"
      "  tputrain nodepool create m1-pool --cluster jetstream --location us-east5 --machine-type m1-ultramem-160 \\\n"
      "      --disk-size 3000 --scopes cloud-platform\n"
      "  tputrain nodepool create iw --cluster ironwood --location us-central1-c --tpu-type tpu7x-128");
  create->callback([options, &context] { context.outcome = RunNodePoolCreate(*options, context); });

  auto* remove = nodepool->add_subcommand("delete", "Delete a node pool");
  remove->add_option("name", options->name, "Node pool name")->required();
  remove->add_option("--cluster", options->cluster, "Cluster")->required();
  AddProvisionFlags(remove, options->provision);
  AddYesFlag(remove, options->provision.yes);
  remove->footer("Example:\n  tputrain nodepool delete tpu-v6e-16 --cluster ray-tpu --location us-east5-b --yes");
  remove->callback([options, &context] { context.outcome = RunNodePoolDelete(*options, context); });

  auto* describe = nodepool->add_subcommand("describe", "Show a node pool");
  describe->add_option("name", options->name, "Node pool name")->required();
  describe->add_option("--cluster", options->cluster, "Cluster")->required();
  describe->footer("Example:\n  tputrain nodepool describe tpu-v6e-16 --cluster ray-tpu --location us-east5-b");
  describe->callback([options, &context] { context.outcome = RunNodePoolRead(*options, context, false); });

  auto* list = nodepool->add_subcommand("list", "List a cluster's node pools");
  list->add_option("--cluster", options->cluster, "Cluster")->required();
  list->footer("Example:\n  tputrain nodepool list --cluster ray-tpu --location us-east5-b --format json");
  list->callback([options, &context] { context.outcome = RunNodePoolRead(*options, context, true); });
}

}  // namespace tputrain::cli
