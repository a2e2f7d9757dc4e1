// `up`, `status` and `down` of a stack file on the composition root: the file read, the steps'
// environment opened, up's plan and outcome as shown, down as the run's cleanup.
#include "tputrain/workflow/stack_session.h"

#include "tputrain/core/duration.h"
#include "tputrain/workflow/expiry.h"
#include "tputrain/workflow/kube_access.h"
#include "tputrain/workflow/prices.h"
#include "tputrain/workflow/submit_reach.h"
#include "tputrain/workflow/tpu_vm_reach.h"

namespace tputrain::workflow {
namespace {

// submit's environment for the stack's workload: what `submit --cluster C -n NS --run R` reaches,
// kept alive with the connections it opens.
struct HeldSubmit {
  SubmitConnections kept;
  std::optional<SubmitEnv> env;
};

std::shared_ptr<SubmitEnv> HoldSubmitEnv(Root& root, const SubmitReach& submit) {
  auto held = std::make_shared<HeldSubmit>();
  held->env.emplace(SubmitEnvOf(root, submit, held->kept));
  return std::shared_ptr<SubmitEnv>(held, &*held->env);
}

StackReach ReachOf(Root& root, const std::string& run_id, const std::string& state_dir) {
  StackReach reach;
  reach.connect_cluster = RecordedReach(root).connect_cluster;
  reach.downloads = &root.Downloads();
  reach.submit_env = [&root, run_id, state_dir](const gcp::container::ClusterRef& cluster,
                                                const std::string& ns) -> core::Result<std::shared_ptr<SubmitEnv>> {
    SubmitReach submit;
    submit.access.gke_cluster = cluster.cluster;
    submit.access.gke_ref = cluster;
    submit.access.ns = ns;
    submit.ledger = {run_id, state_dir};
    return HoldSubmitEnv(root, submit);
  };
  reach.submit_env_on_tpu_vm = [&root, run_id,
                                state_dir](const gcp::tpu::NodeRef& node) -> core::Result<std::shared_ptr<SubmitEnv>> {
    SubmitReach submit;
    submit.tpu_vm_node = node;
    submit.ledger = {run_id, state_dir};
    return HoldSubmitEnv(root, submit);
  };
  reach.connect_tpu_vm_ray = [&root](const gcp::tpu::NodeRef& node) { return ConnectTpuVmRayAt(root, node, {}, {}); };
  return reach;
}

bool IsStepKind(const std::string& name) {
  for (int kind = 0; kind <= static_cast<int>(StepKind::kWorkload); ++kind) {
    if (StepKindName(static_cast<StepKind>(kind)) == name) return true;
  }
  return false;
}

}  // namespace

core::Result<Stack> LoadStackFile(Root& root, const std::string& file) {
  if (file.empty()) return core::Fail(core::Error::Usage("-f: expected a stack file (tputrain up -f stack.yaml)"));
  auto stack = LoadStack(file, root.env(), {root.clock(), root.TemplateDirs()});
  // Its TPU VMs' Ray tokens: never in a plan's bodies, logs or messages.
  if (stack) {
    for (const auto& secret : stack->Secrets()) root.redactor().Hold(secret);
  }
  return stack;
}

core::Status CheckSkips(const Stack& stack, const std::vector<std::string>& skip) {
  for (const auto& name : skip) {
    if (stack.Find(name) == nullptr && !IsStepKind(name)) {
      return core::Fail(core::Error::Usage("--skip: no step " + name + " in " + stack.file));
    }
  }
  return {};
}

core::Result<std::unique_ptr<StackEnv>> OpenStackEnv(Root& root, const Stack& stack, const StackCommand& command,
                                                     bool plan_only, StackObserver* observer) {
  auto timeout = core::ParseOptionalDuration("--timeout", command.timeout);
  if (!timeout) return core::Fail(timeout.error());
  auto expires_at = ExpiresAt(root.clock().WallNow(), stack.ttl);
  if (!expires_at) return core::Fail(expires_at.error());
  state::LedgerStore& ledger = root.Ledger(command.state_dir);
  if (!plan_only) {
    // The run first: a ledger that cannot record refuses the command before any call.
    auto run = ledger.ResolveRun(stack.name, root.env(), /*create=*/true);
    if (!run) return core::Fail(run.error());
  }
  auto google = root.Google();
  if (!google) return core::Fail(google.error());
  auto env = std::make_unique<StackEnv>(StackEnv{root.Provision(*google), {}, observer});
  env->provision.ledger = &ledger;  // read only when planning: nothing is recorded
  env->provision.run_id = stack.name;
  env->provision.expires_at = *expires_at;
  env->provision.poll.timeout = *timeout;
  env->provision.prices = TpuPricesOnFirstUse(root);
  env->reach = ReachOf(root, stack.name, command.state_dir);
  env->recreate = command.recreate;
  env->skip = command.skip;
  return env;
}

nlohmann::json PlanJson(const Stack& stack, const std::vector<StepPlan>& plan, const core::Redactor& redactor) {
  nlohmann::json json = {{"stack", stack.name}, {"dry_run", true}, {"steps", ToJson(plan)}};
  for (auto& step : json["steps"]) {
    for (auto& request : step["requests"]) {
      if (!request.contains("body")) continue;
      const std::string shown = redactor(request["body"].dump());
      auto parsed = nlohmann::json::parse(shown, nullptr, /*allow_exceptions=*/false);
      request["body"] = parsed.is_discarded() ? nlohmann::json(shown) : parsed;
    }
  }
  return json;
}

nlohmann::json ToJson(const Stack& stack, const std::vector<StepResult>& results) {
  return {{"stack", stack.name}, {"run", stack.name}, {"steps", ToJson(results)}};
}

nlohmann::json ToJson(const Stack& stack, const std::vector<StepStatus>& statuses) {
  return {{"stack", stack.name}, {"run", stack.name}, {"steps", ToJson(statuses)}};
}

core::Status UpOutcome(const Stack& stack, const std::vector<StepResult>& results) {
  auto outcome = StackOutcome(results);
  if (outcome) return outcome;
  core::Error error = outcome.error();
  error.message += "; run `tputrain up -f " + stack.file + "` again to finish (what is done is adopted)";
  error.message += "\n  what exists is recorded in the run ledger: tputrain runs show --run " + stack.name;
  return core::Fail(error);
}

core::Result<StackDownPlanned> PlanStackDown(Root& root, const StackDownRequest& request) {
  if (request.stack.file.empty() == request.run.empty()) {
    return core::Fail(core::Error::Usage("-f: give the stack file, or --run with the stack's name (one of them)"));
  }
  StackDownPlanned planned{request.run, {}};
  if (planned.run.empty()) {
    auto stack = LoadStackFile(root, request.stack.file);
    if (!stack) return core::Fail(stack.error());
    planned.run = stack->name;
  }
  auto cleanup = PlanCleanup(
      root,
      {{planned.run, false, request.force}, request.stack.state_dir, request.stack.timeout, false, request.dry_run});
  if (!cleanup) return core::Fail(cleanup.error());
  planned.cleanup = std::move(*cleanup);
  return planned;
}

core::Result<std::vector<RunCleaned>> CarryOutStackDown(Root& root, const StackDownPlanned& planned) {
  auto cleaned = CarryOutCleanup(root, planned.cleanup);
  if (!cleaned) return core::Fail(cleaned.error());
  (void)root.Ledger(planned.cleanup.state_dir).Update(planned.run, [](state::Ledger& ledger) {
    ledger.steps = nlohmann::json::object();
  });
  return std::move(cleaned->runs);
}

}  // namespace tputrain::workflow
