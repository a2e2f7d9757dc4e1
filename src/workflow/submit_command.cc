#include "tputrain/workflow/submit_command.h"

#include "template_values.h"
#include "tputrain/core/duration.h"
#include "tputrain/core/number.h"

namespace tputrain::workflow {
namespace {

// Far beyond any training run, and well inside what MaxText and Python integers take.
constexpr int64_t kMaxSteps = 1'000'000'000'000;

core::Status CheckExclusive(const SubmitCommand& command) {
  const std::string& cluster_flag = command.cluster_flag;
  if (!command.reach.tpu_vm.name.empty() && (!cluster_flag.empty() || command.address_given)) {
    return core::Fail(core::Error::Usage("--tpu-vm and " +
                                         (!cluster_flag.empty() ? cluster_flag : std::string("--address")) +
                                         " are exclusive: the job runs on the TPU VM's own Ray"));
  }
  if (!cluster_flag.empty() && command.address_given) {
    return core::Fail(core::Error::Usage("--address and " + cluster_flag +
                                         " are exclusive: pass --address for a Ray you reach directly, or the "
                                         "cluster flags for a RayCluster tputrain applies"));
  }
  return {};
}

}  // namespace

core::Result<SubmitRequest> SubmitCommand::Request() const {
  if (auto exclusive = CheckExclusive(*this); !exclusive) return core::Fail(exclusive.error());
  SubmitRequest request{spec, std::nullopt, wait, dry_run};
  if (steps) {
    auto count = core::ParseCount("--steps", *steps, kMaxSteps);
    if (!count) return core::Fail(count.error());
    request.spec.steps = *count;
  }
  if (cluster_flag.empty()) return request;
  auto timeout = core::ParseDuration("--ready-timeout", ready_timeout);
  if (!timeout) return core::Fail(timeout.error());
  auto mode = catalog::ParseCapacityMode(capacity);
  if (!mode) {
    return core::Fail(core::Error::Usage("--capacity: expected on-demand, spot or flex-start, got '" + capacity + "'"));
  }
  request.raycluster = raycluster;
  request.raycluster->ready_timeout = *timeout;
  request.raycluster->capacity = *mode;
  request.raycluster->ns = reach.access.ns;
  return request;
}

core::Result<SubmitRequest> SubmitCommand::Resolve(Root& root) const {
  auto request = Request();
  if (!request || !request->raycluster) return request;
  auto settings = root.Settings();
  if (!settings) return core::Fail(settings.error());
  request->raycluster->template_dirs = root.TemplateDirs();
  request->raycluster->configuration = ConfigurationValues(*settings);
  return request;
}

core::Result<SubmitResult> Submit(Root& root, const SubmitCommand& command, SubmitCallbacks callbacks) {
  auto request = command.Resolve(root);
  if (!request) return core::Fail(request.error());
  SubmitConnections kept;
  SubmitEnv env = SubmitEnvOf(root, command.reach, kept);
  env.callbacks = std::move(callbacks);
  return Submit(env, *request);
}

}  // namespace tputrain::workflow
