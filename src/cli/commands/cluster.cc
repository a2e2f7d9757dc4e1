// tputrain cluster create|delete (the reads: cluster_read.cc).
#include "commands/capacity_flags.h"
#include "commands/cluster_read.h"
#include "commands/commands.h"
#include "commands/provision_common.h"
#include "commands/ttl_flag.h"
#include "tputrain/core/number.h"
#include "tputrain/gcp/container/client.h"

namespace tputrain::cli {
namespace {

using gcp::container::ClusterRef;

// GKE's node pool limit of nodes per zone.
constexpr int64_t kMaxPoolNodes = 1000;

struct ClusterOptions {
  std::string name;
  bool autopilot = false;
  bool ray_operator = false;
  bool gcs_fuse = false;
  bool workload_identity = false;
  std::string workload_pool;
  std::string machine_type;
  std::string num_nodes = "3";
  std::string cluster_version;
  std::vector<std::string> scopes;
  std::vector<std::string> node_locations;
  workflow::TpuPoolRequest pool;  // --tpu-type and friends
  ProvisionFlags provision;
  std::string kubeconfig;
  bool token_exec = false;
};

core::Result<int> RunClusterCreate(ClusterOptions options, Context& context) {
  auto ref = ClusterRefOf(context, options.name, "NAME");
  if (!ref) return core::Fail(ref.error());
  workflow::ClusterCreate request;
  request.ref = *ref;
  auto& spec = request.spec;
  spec.name = options.name;
  spec.autopilot = options.autopilot;
  spec.ray_operator = options.ray_operator;
  spec.gcs_fuse = options.gcs_fuse;
  spec.workload_pool = options.workload_pool;
  if (options.workload_identity && spec.workload_pool.empty()) spec.workload_pool = ref->project + ".svc.id.goog";
  spec.cluster_version = options.cluster_version;
  spec.node_locations = options.node_locations;
  spec.default_pool.machine_type = options.machine_type;
  auto nodes = core::ParseCount("--num-nodes", options.num_nodes, kMaxPoolNodes);
  if (!nodes) return core::Fail(nodes.error());
  spec.default_pool.node_count = static_cast<int>(*nodes);
  spec.default_pool.oauth_scopes = gcp::container::ExpandScopes(options.scopes);
  if (!options.pool.tpu_type.empty()) {
    if (options.autopilot) {
      return core::Fail(core::Error::Usage("--tpu-type: Autopilot provisions TPU nodes itself; drop --autopilot"));
    }
    options.pool.location = ref->location;
    auto pools = workflow::NodePoolsFor(options.pool.tpu_type, options.pool);
    if (!pools) return core::Fail(pools.error());
    request.pools = std::move(*pools);
  }
  if (auto valid = workflow::CheckClusterCreate(request); !valid) return core::Fail(valid.error());
  return RunProvision(context, options.provision,
                      [&](workflow::ProvisionEnv& env) { return workflow::CreateCluster(env, request); });
}

core::Result<int> RunClusterDelete(const ClusterOptions& options, Context& context) {
  auto ref = ClusterRefOf(context, options.name, "NAME");
  if (!ref) return core::Fail(ref.error());
  auto confirmed =
      ConfirmDelete(context, options.provision.yes, "cluster delete",
                    "Delete cluster " + ref->cluster + " in " + ref->location + " and all its node pools?");
  if (!confirmed) return core::Fail(confirmed.error());
  if (!*confirmed) return NothingDeleted(context);
  return RunProvision(context, options.provision,
                      [&](workflow::ProvisionEnv& env) -> core::Result<std::vector<workflow::Outcome>> {
                        auto outcome = workflow::DeleteCluster(env, *ref);
                        if (!outcome) return core::Fail(outcome.error());
                        return std::vector<workflow::Outcome>{*outcome};
                      });
}

void SetupCluster(CLI::App& root, Context& context) {
  auto options = std::make_shared<ClusterOptions>();
  auto* cluster = root.add_subcommand("cluster", "GKE clusters (with TPU slice node pools)");
  cluster->require_subcommand(1);

  auto* create = cluster->add_subcommand("create", "Create a GKE cluster (Standard unless --autopilot)");
  create->add_option("name", options->name, "Cluster name")->required();
  create->add_flag("--autopilot", options->autopilot, "An Autopilot cluster");
  create->add_flag("--ray-operator", options->ray_operator, "Enable the Ray operator add-on");
  create->add_flag("--gcs-fuse", options->gcs_fuse, "Enable the Cloud Storage FUSE CSI driver add-on");
  create->add_flag("--workload-identity", options->workload_identity, "Workload Identity (pool PROJECT.svc.id.goog)");
  create->add_option("--workload-pool", options->workload_pool, "Workload Identity pool (PROJECT.svc.id.goog)");
  create->add_option("--machine-type", options->machine_type, "Machine type of the default pool");
  create->add_option("--num-nodes", options->num_nodes, "Nodes in the default pool")->capture_default_str();
  create->add_option("--cluster-version", options->cluster_version, "Initial GKE version");
  create->add_option("--scopes", options->scopes, "OAuth scopes of the default pool")->delimiter(',');
  create->add_option("--node-locations", options->node_locations, "Zones of the nodes")->delimiter(',');
  create->add_option("--tpu-type", options->pool.tpu_type, "Also create TPU slice node pool(s) of this type (v6e-16)");
  create->add_option("--num-slices", options->pool.num_slices, "TPU slice pools to create")->check(CLI::Range(1, 64));
  AddCapacityFlags(create, options->pool.capacity, true);
  AddSkipZoneCheckFlag(create, options->pool.skip_zone_check);
  AddProvisionFlags(create, options->provision);
  AddRecreateFlag(create, options->provision);
  AddTtlFlag(create, options->provision);
  create->footer(
      "Examples:\n"
      "  tputrain cluster create ray-tpu --location us-east5-b --ray-operator --gcs-fuse --workload-identity \\\n"
      "      --machine-type n1-standard-16 --tpu-type v6e-16\n"
      "  tputrain cluster create jetstream --location us-east5 --cluster-version 1.32.4-gke.1415000 \\\n"
      "      --scopes cloud-platform --machine-type n2-standard-32 --dry-run");
  create->callback([options, &context] { context.outcome = RunClusterCreate(*options, context); });

  auto* remove = cluster->add_subcommand("delete", "Delete a GKE cluster");
  remove->add_option("name", options->name, "Cluster name")->required();
  AddProvisionFlags(remove, options->provision);
  AddYesFlag(remove, options->provision.yes);
  remove->footer("Example:\n  tputrain cluster delete ray-tpu --location us-east5-b --yes");
  remove->callback([options, &context] { context.outcome = RunClusterDelete(*options, context); });

  auto* describe = cluster->add_subcommand("describe", "Show a cluster");
  describe->add_option("name", options->name, "Cluster name")->required();
  describe->footer("Example:\n  tputrain cluster describe ray-tpu --location us-east5-b --format json");
  describe->callback([options, &context] { context.outcome = RunClusterDescribe(options->name, context); });

  auto* list = cluster->add_subcommand("list", "List clusters (every location unless --location)");
  list->footer("Example:\n  tputrain cluster list --project my-project");
  list->callback([&context] { context.outcome = RunClusterList(context); });

  auto* credentials = cluster->add_subcommand("get-credentials", "Write a kubeconfig entry for a cluster");
  credentials->add_option("name", options->name, "Cluster name")->required();
  credentials->add_option("--kubeconfig", options->kubeconfig, "File to write (default: KUBECONFIG, ~/.kube/config)")
      ->type_name("FILE");
  credentials->add_flag("--token-exec", options->token_exec,
                        "Authenticate with 'tputrain auth print-access-token' instead of gke-gcloud-auth-plugin");
  credentials->footer(
      "Example:\n  tputrain cluster get-credentials ray-tpu --location us-east5-b && kubectl get nodes");
  credentials->callback([options, &context] {
    context.outcome = RunGetCredentials(options->name, options->kubeconfig, options->token_exec, context);
  });
}

}  // namespace

void SetupClusterCommands(CLI::App& root, Context& context) {
  SetupCluster(root, context);
  SetupNodePoolCommand(root, context);
}

}  // namespace tputrain::cli
