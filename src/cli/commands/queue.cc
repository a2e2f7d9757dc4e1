// tputrain queue create | delete | list | describe (status and wait: queue_status.cc)
#include "tputrain/workflow/queue.h"
#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "commands/provision_common.h"
#include "commands/queue_output.h"
#include "commands/serve_flags.h"
#include "output/output.h"
#include "tputrain/workflow/serve_env.h"

namespace tputrain::cli {
namespace {

struct QueueFlags {
  KubeAccessFlags access;
  ProvisionFlags ledger;  // --run, --state-dir
  std::string name;
  std::vector<std::string> tpu_types;
  int64_t chips = 0;
  bool flex_start = false;
  std::string kueue_manifest;
  std::string create_nodepool;
  std::string timeout = "5m";
  bool all_namespaces = false;
};

core::Result<int> RunCreate(const QueueFlags& flags, Context& context) {
  auto timeout = ParseTimeoutFlag("--timeout", flags.timeout);
  if (!timeout) return core::Fail(timeout.error());
  workflow::QueueCreateRequest request;
  request.name = flags.name;
  request.ns = flags.access.ns;
  request.tpu_types = flags.tpu_types;
  if (flags.chips != 0) request.chips = flags.chips;
  request.flex_start = flags.flex_start;
  request.kueue_manifest = flags.kueue_manifest;
  request.create_nodepool = flags.create_nodepool;
  request.install_timeout = timeout->value_or(std::chrono::minutes(5));
  request.dry_run = context.global.dry_run;
  auto cluster = workflow::OpenRecordedApply(context.stack(), flags.access,
                                             {flags.ledger.run_id, flags.ledger.state_dir}, request.dry_run);
  if (!cluster) return core::Fail(cluster.error());
  workflow::QueueEnv env{(*cluster)->env, context.stack().Downloads(),
                         workflow::PoolCreatorFor(context.stack(), flags.access, (*cluster)->ledger)};
  auto created = workflow::CreateQueue(env, request);
  if (!created) return core::Fail(created.error());
  PrintQueueCreated(context, *created, (*cluster)->ledger.run_id, request.dry_run);
  return core::kExitOk;
}

core::Result<int> RunDelete(const QueueFlags& flags, Context& context) {
  auto timeout = ParseTimeoutFlag("--timeout", flags.timeout);
  if (!timeout) return core::Fail(timeout.error());
  auto connection = workflow::ConnectCluster(context.stack(), flags.access);
  if (!connection) return core::Fail(connection.error());
  auto env = workflow::RecordedDeleteEnvOf(context.stack(), flags.access, **connection,
                                           {flags.ledger.run_id, flags.ledger.state_dir});
  auto deleted = workflow::DeleteQueue(env, flags.name, flags.access.ns, timeout->value_or(std::chrono::minutes(5)),
                                       context.global.dry_run);
  if (!deleted) return core::Fail(deleted.error());
  PrintQueueDeleted(context, *deleted, env.run_id);
  return core::kExitOk;
}

core::Result<int> RunList(const QueueFlags& flags, Context& context) {
  auto connection = workflow::ConnectCluster(context.stack(), flags.access);
  if (!connection) return core::Fail(connection.error());
  auto queues =
      workflow::ListQueues(*(*connection)->client, *(*connection)->discovery, flags.access.ns, flags.all_namespaces);
  if (!queues) return core::Fail(queues.error());
  PrintQueueList(context, *queues);
  return core::kExitOk;
}

core::Result<int> RunDescribe(const QueueFlags& flags, Context& context) {
  auto connection = workflow::ConnectCluster(context.stack(), flags.access);
  if (!connection) return core::Fail(connection.error());
  auto described =
      workflow::DescribeQueue(*(*connection)->client, *(*connection)->discovery, flags.name, flags.access.ns);
  if (!described) return core::Fail(described.error());
  PrintQueueDescription(context, *described);
  return core::kExitOk;
}

CLI::App* AddVerb(CLI::App& queue, const std::string& verb, const std::string& help, Context& context,
                  core::Result<int> (*run)(const QueueFlags&, Context&), std::shared_ptr<QueueFlags> flags) {
  auto* command = queue.add_subcommand(verb, help);
  AddKubeAccessFlags(*command, flags->access);
  command->callback([flags, &context, run] { context.outcome = run(*flags, context); });
  return command;
}

}  // namespace

void SetupQueueCommand(CLI::App& root, Context& context) {
  auto* queue = root.add_subcommand(
      "queue", "Queues for a shared cluster (Kueue): who runs on the TPU slices next, and why a job waits");
  queue->require_subcommand(1);

  auto create_flags = std::make_shared<QueueFlags>();
  auto* create =
      AddVerb(*queue, "create", "Install Kueue if the cluster has none, and make a queue with the TPU chips as quota",
              context, RunCreate, create_flags);
  create->add_option("name", create_flags->name, "The queue (ClusterQueue and LocalQueue)")->required();
  create->add_option("--tpu-type", create_flags->tpu_types,
                     "A TPU shape to queue for, such as v6e-16 (repeatable; default: every shape of the nodes)");
  create->add_option("--chips", create_flags->chips,
                     "google.com/tpu quota for each shape (default: the chips of that shape's nodes)");
  create->add_flag("--flex-start", create_flags->flex_start,
                   "Admit through GKE's flex-start with queued provisioning: a ProvisioningRequest per workload");
  create->add_option("--kueue-manifest", create_flags->kueue_manifest,
                     "Kueue release manifest to install instead of the pinned one: a file (air-gapped sites) or URL");
  create->add_option("--create-nodepool", create_flags->create_nodepool,
                     "With --flex-start and one --tpu-type: first create this GKE pool, flex-start with queued "
                     "provisioning (GKE may refuse it for TPUs: its words are said)");
  create->add_option("--timeout", create_flags->timeout, "How long Kueue's install may take (default 5m)");
  AddProvisionFlags(create, create_flags->ledger, /*waits=*/false);
  create->footer(
      "Examples:\n  tputrain queue create team --cluster train --location us-east5\n"
      "  tputrain queue create dws --tpu-type v6e-16 --chips 64 --flex-start -n ml");

  auto delete_flags = std::make_shared<QueueFlags>();
  auto* del = AddVerb(*queue, "delete", "Delete a queue's objects that this run made (Kueue stays for cleanup)",
                      context, RunDelete, delete_flags);
  del->add_option("name", delete_flags->name, "The queue")->required();
  del->add_option("--timeout", delete_flags->timeout, "How long each deletion may take (default 5m)");
  del->add_option("--run", delete_flags->ledger.run_id, "The run that made the queue (default: the current run)");
  del->add_option("--state-dir", delete_flags->ledger.state_dir, "Where run ledgers are kept");
  del->footer("Example:\n  tputrain queue delete team -n ml --run team-queue");

  auto list_flags = std::make_shared<QueueFlags>();
  auto* list = AddVerb(*queue, "list", "The namespace's queues: quota used and nominal, workloads pending and admitted",
                       context, RunList, list_flags);
  list->add_flag("-A,--all-namespaces", list_flags->all_namespaces, "Every namespace's queues");
  list->footer("Example:\n  tputrain queue list -A --format json");

  auto describe_flags = std::make_shared<QueueFlags>();
  auto* describe = AddVerb(*queue, "describe", "One queue: flavors, quota, admission checks and its workloads", context,
                           RunDescribe, describe_flags);
  describe->add_option("name", describe_flags->name, "The queue")->required();
  describe->footer("Example:\n  tputrain queue describe team -n ml");

  AddQueueStatusCommands(*queue, context);
}

}  // namespace tputrain::cli
