// tputrain queue create | delete | list | describe (status and wait: queue_status.cc)
#include "tputrain/workflow/queue.h"
#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "commands/provision_common.h"
#include "commands/queue_output.h"
#include "output/output.h"

namespace tputrain::cli {
namespace {

// queue create's flags: the request's, and the run ledger's (AddProvisionFlags).
struct CreateFlags {
  workflow::QueueCreateRequest request;
  ProvisionFlags ledger;
  int64_t chips = 0;
};

core::Result<int> RunCreate(const CreateFlags& flags, Context& context) {
  auto request = flags.request;
  request.ledger = {flags.ledger.run_id, flags.ledger.state_dir};
  if (flags.chips != 0) request.chips = flags.chips;
  request.dry_run = context.global.dry_run;
  auto created = workflow::CreateQueue(context.stack(), request);
  if (!created) return core::Fail(created.error());
  PrintQueueCreated(context, *created);
  return core::kExitOk;
}

core::Result<int> RunDelete(const workflow::QueueDeleteRequest& flags, Context& context) {
  auto request = flags;
  request.dry_run = context.global.dry_run;
  auto deleted = workflow::DeleteQueue(context.stack(), request);
  if (!deleted) return core::Fail(deleted.error());
  PrintQueueDeleted(context, *deleted);
  return core::kExitOk;
}

core::Result<int> RunList(const workflow::QueueListRequest& request, Context& context) {
  auto queues = workflow::ListQueues(context.stack(), request);
  if (!queues) return core::Fail(queues.error());
  PrintQueueList(context, *queues);
  return core::kExitOk;
}

core::Result<int> RunDescribe(const workflow::QueueDescribeRequest& request, Context& context) {
  auto described = workflow::DescribeQueue(context.stack(), request);
  if (!described) return core::Fail(described.error());
  PrintQueueDescription(context, *described);
  return core::kExitOk;
}

template <typename Flags>
CLI::App* AddVerb(CLI::App& queue, const std::string& verb, const std::string& help, Context& context,
                  core::Result<int> (*run)(const Flags&, Context&), std::shared_ptr<Flags> flags,
                  workflow::KubeAccessFlags& access) {
  auto* command = queue.add_subcommand(verb, help);
  AddKubeAccessFlags(*command, access);
  command->callback([flags, &context, run] { context.outcome = run(*flags, context); });
  return command;
}

}  // namespace

void SetupQueueCommand(CLI::App& root, Context& context) {
  auto* queue = root.add_subcommand(
      "queue", "Queues for a shared cluster (Kueue): who runs on the TPU slices next, and why a job waits");
  queue->require_subcommand(1);

  auto create_flags = std::make_shared<CreateFlags>();
  auto& create_request = create_flags->request;
  auto* create =
      AddVerb(*queue, "create", "Install Kueue if the cluster has none, and make a queue with the TPU chips as quota",
              context, RunCreate, create_flags, create_request.access);
  create->add_option("name", create_request.name, "The queue (ClusterQueue and LocalQueue)")->required();
  create->add_option("--tpu-type", create_request.tpu_types,
                     "A TPU shape to queue for, such as v6e-16 (repeatable; default: every shape of the nodes)");
  create->add_option("--chips", create_flags->chips,
                     "google.com/tpu quota for each shape (default: the chips of that shape's nodes)");
  create->add_flag("--flex-start", create_request.flex_start,
                   "Admit through GKE's flex-start with queued provisioning: a ProvisioningRequest per workload");
  create->add_option("--kueue-manifest", create_request.kueue_manifest,
                     "Kueue release manifest to install instead of the pinned one: a file (air-gapped sites) or URL");
  create->add_option("--create-nodepool", create_request.create_nodepool,
                     "With --flex-start and one --tpu-type: first create this GKE pool, flex-start with queued "
                     "provisioning (GKE may refuse it for TPUs: its words are said)");
  create->add_option("--timeout", create_request.timeout, "How long Kueue's install may take (default 5m)");
  AddProvisionFlags(create, create_flags->ledger, /*waits=*/false);
  create->footer(
      "Examples:\n  tputrain queue create team --cluster train --location us-east5\n"
      "  tputrain queue create dws --tpu-type v6e-16 --chips 64 --flex-start -n ml");

  auto delete_flags = std::make_shared<workflow::QueueDeleteRequest>();
  auto* del = AddVerb(*queue, "delete", "Delete a queue's objects that this run made (Kueue stays for cleanup)",
                      context, RunDelete, delete_flags, delete_flags->access);
  del->add_option("name", delete_flags->name, "The queue")->required();
  del->add_option("--timeout", delete_flags->timeout, "How long each deletion may take (default 5m)");
  del->add_option("--run", delete_flags->ledger.run_id, "The run that made the queue (default: the current run)");
  del->add_option("--state-dir", delete_flags->ledger.state_dir, "Where run ledgers are kept");
  del->footer("Example:\n  tputrain queue delete team -n ml --run team-queue");

  auto list_flags = std::make_shared<workflow::QueueListRequest>();
  auto* list = AddVerb(*queue, "list", "The namespace's queues: quota used and nominal, workloads pending and admitted",
                       context, RunList, list_flags, list_flags->access);
  list->add_flag("-A,--all-namespaces", list_flags->all_namespaces, "Every namespace's queues");
  list->footer("Example:\n  tputrain queue list -A --format json");

  auto describe_flags = std::make_shared<workflow::QueueDescribeRequest>();
  auto* describe = AddVerb(*queue, "describe", "One queue: flavors, quota, admission checks and its workloads", context,
                           RunDescribe, describe_flags, describe_flags->access);
  describe->add_option("name", describe_flags->name, "The queue")->required();
  describe->footer("Example:\n  tputrain queue describe team -n ml");

  AddQueueStatusCommands(*queue, context);
}

}  // namespace tputrain::cli
