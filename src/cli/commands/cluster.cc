// tputrain cluster create|delete (the reads: cluster_read.cc).
#include "commands/cluster_read.h"
#include "commands/commands.h"
#include "commands/provision_common.h"
#include "commands/ttl_flag.h"
#include "flags/capacity_flags.h"
#include "tputrain/workflow/provision_requests.h"

namespace tputrain::cli {
namespace {

struct ClusterOptions {
  workflow::ClusterCreateRequest create;  // NAME, --tpu-type and the other create flags
  ProvisionFlags provision;
  std::string kubeconfig;
  bool token_exec = false;
};

core::Result<int> RunClusterCreate(const ClusterOptions& options, Context& context) {
  return RunProvision(context, options.provision, options.create);
}

core::Result<int> RunClusterDelete(const ClusterOptions& options, Context& context) {
  return RunProvision(context, options.provision, workflow::ClusterDeletion{options.create.name}, "cluster delete");
}

void SetupCluster(CLI::App& root, Context& context) {
  auto options = std::make_shared<ClusterOptions>();
  auto* cluster = root.add_subcommand("cluster", "GKE clusters (with TPU slice node pools)");
  cluster->require_subcommand(1);

  auto* create = cluster->add_subcommand("create", "Create a GKE cluster (Standard unless --autopilot)");
  create->add_option("name", options->create.name, "Cluster name")->required();
  create->add_flag("--autopilot", options->create.autopilot, "An Autopilot cluster");
  create->add_flag("--ray-operator", options->create.ray_operator, "Enable the Ray operator add-on");
  create->add_flag("--gcs-fuse", options->create.gcs_fuse, "Enable the Cloud Storage FUSE CSI driver add-on");
  create->add_flag("--workload-identity", options->create.workload_identity,
                   "Workload Identity (pool PROJECT.svc.id.goog)");
  create->add_option("--workload-pool", options->create.workload_pool, "Workload Identity pool (PROJECT.svc.id.goog)");
  create->add_option("--machine-type", options->create.machine_type, "Machine type of the default pool");
  create->add_option("--num-nodes", options->create.num_nodes, "Nodes in the default pool")->capture_default_str();
  create->add_option("--cluster-version", options->create.cluster_version, "Initial GKE version");
  create->add_option("--scopes", options->create.scopes, "OAuth scopes of the default pool")->delimiter(',');
  create->add_option("--node-locations", options->create.node_locations, "Zones of the nodes")->delimiter(',');
  create->add_option("--tpu-type", options->create.pool.tpu_type,
                     "Also create TPU slice node pool(s) of this type (v6e-16)");
  create->add_option("--num-slices", options->create.pool.num_slices, "TPU slice pools to create")
      ->check(CLI::Range(1, 64));
  AddCapacityFlags(create, options->create.pool.capacity, true);
  AddSkipZoneCheckFlag(create, options->create.pool.skip_zone_check);
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
  remove->add_option("name", options->create.name, "Cluster name")->required();
  AddProvisionFlags(remove, options->provision);
  AddYesFlag(remove, options->provision.yes);
  remove->footer("Example:\n  tputrain cluster delete ray-tpu --location us-east5-b --yes");
  remove->callback([options, &context] { context.outcome = RunClusterDelete(*options, context); });

  auto* describe = cluster->add_subcommand("describe", "Show a cluster");
  describe->add_option("name", options->create.name, "Cluster name")->required();
  describe->footer("Example:\n  tputrain cluster describe ray-tpu --location us-east5-b --format json");
  describe->callback([options, &context] { context.outcome = RunClusterDescribe(options->create.name, context); });

  auto* list = cluster->add_subcommand("list", "List clusters (every location unless --location)");
  list->footer("Example:\n  tputrain cluster list --project my-project");
  list->callback([&context] { context.outcome = RunClusterList(context); });

  auto* credentials = cluster->add_subcommand("get-credentials", "Write a kubeconfig entry for a cluster");
  credentials->add_option("name", options->create.name, "Cluster name")->required();
  credentials->add_option("--kubeconfig", options->kubeconfig, "File to write (default: KUBECONFIG, ~/.kube/config)")
      ->type_name("FILE");
  credentials->add_flag("--token-exec", options->token_exec,
                        "Authenticate with 'tputrain auth print-access-token' instead of gke-gcloud-auth-plugin");
  credentials->footer(
      "Example:\n  tputrain cluster get-credentials ray-tpu --location us-east5-b && kubectl get nodes");
  credentials->callback([options, &context] {
    context.outcome = RunGetCredentials(options->create.name, options->kubeconfig, options->token_exec, context);
  });
}

}  // namespace

void SetupClusterCommands(CLI::App& root, Context& context) {
  SetupCluster(root, context);
  SetupNodePoolCommand(root, context);
}

}  // namespace tputrain::cli
