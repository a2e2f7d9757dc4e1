#include "commands/stack_common.h"

#include "commands/provision_common.h"
#include "commands/ttl_flag.h"
#include "tputrain/workflow/kube_access.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/submit_reach.h"
#include "tputrain/workflow/tpu_vm_reach.h"

namespace tputrain::cli {
namespace {

// submit's environment for the stack's workload: what `submit --cluster C -n NS --run R` reaches,
// kept alive with the connections it opens.
struct HeldSubmit {
  workflow::SubmitConnections kept;
  std::optional<workflow::SubmitEnv> env;
};

workflow::StackReach ReachOf(Context& context, const std::string& run_id, const std::string& state_dir) {
  workflow::Root& root = context.stack();
  workflow::StackReach reach;
  reach.connect_cluster = workflow::RecordedReach(root).connect_cluster;
  reach.downloads = &root.Downloads();
  reach.submit_env = [&root, run_id, state_dir](
                         const gcp::container::ClusterRef& cluster,
                         const std::string& ns) -> core::Result<std::shared_ptr<workflow::SubmitEnv>> {
    workflow::SubmitReach submit;
    submit.access.gke_cluster = cluster.cluster;
    submit.access.gke_ref = cluster;
    submit.access.ns = ns;
    submit.ledger = {run_id, state_dir};
    auto held = std::make_shared<HeldSubmit>();
    held->env.emplace(workflow::SubmitEnvOf(root, submit, held->kept));
    return std::shared_ptr<workflow::SubmitEnv>(held, &*held->env);
  };
  reach.submit_env_on_tpu_vm =
      [&root, run_id, state_dir](const gcp::tpu::NodeRef& node) -> core::Result<std::shared_ptr<workflow::SubmitEnv>> {
    workflow::SubmitReach submit;
    submit.tpu_vm_node = node;
    submit.ledger = {run_id, state_dir};
    auto held = std::make_shared<HeldSubmit>();
    held->env.emplace(workflow::SubmitEnvOf(root, submit, held->kept));
    return std::shared_ptr<workflow::SubmitEnv>(held, &*held->env);
  };
  reach.connect_tpu_vm_ray = [&root](const gcp::tpu::NodeRef& node) {
    return workflow::ConnectTpuVmRayAt(root, node, {}, {});
  };
  return reach;
}

}  // namespace

core::Result<workflow::Stack> ReadStackFile(Context& context, const std::string& file) {
  if (file.empty()) return core::Fail(core::Error::Usage("-f: expected a stack file (tputrain up -f stack.yaml)"));
  workflow::Root& root = context.stack();
  auto stack = workflow::LoadStack(file, context.env, {root.clock(), root.TemplateDirs()});
  // Its TPU VMs' Ray tokens: never in a plan's bodies, logs or messages.
  if (stack) {
    for (const auto& secret : stack->Secrets()) context.redactor.Hold(secret);
  }
  return stack;
}

core::Result<StackSession> OpenStackSession(Context& context, const workflow::Stack& stack, const StackFlags& flags,
                                            bool plan_only, workflow::StackObserver* observer) {
  auto timeout = ParseTimeoutFlag("--timeout", flags.timeout);
  if (!timeout) return core::Fail(timeout.error());
  auto expires_at = ExpiresAt(context, stack.ttl);
  if (!expires_at) return core::Fail(expires_at.error());
  workflow::Root& root = context.stack();
  state::LedgerStore& ledger = root.Ledger(flags.state_dir);
  if (!plan_only) {
    // The run first: a ledger that cannot record refuses the command before any call.
    auto run = ledger.ResolveRun(stack.name, context.env, /*create=*/true);
    if (!run) return core::Fail(run.error());
  }
  auto google = root.Google();
  if (!google) return core::Fail(google.error());
  StackSession session;
  session.env = std::make_unique<workflow::StackEnv>(workflow::StackEnv{root.Provision(*google), {}, observer});
  auto& env = *session.env;
  env.provision.ledger = &ledger;  // read only when planning: nothing is recorded
  env.provision.run_id = stack.name;
  env.provision.expires_at = *expires_at;
  env.provision.poll.timeout = *timeout;
  env.provision.prices = workflow::TpuPricesOnFirstUse(context.stack());
  env.reach = ReachOf(context, stack.name, flags.state_dir);
  env.recreate = flags.recreate;
  env.skip = flags.skip;
  return session;
}

}  // namespace tputrain::cli
