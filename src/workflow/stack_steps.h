#pragma once

// One stack step done through the workflow call its command makes (private to the workflow
// module): the runner schedules, this does.
#include <string>
#include <string_view>
#include <vector>

#include "tputrain/core/reporter.h"
#include "tputrain/workflow/provision.h"
#include "tputrain/workflow/stack.h"
#include "tputrain/workflow/stack_run.h"

namespace tputrain::workflow::internal {

// `env` as it is, telling `reporter` instead of its own.
ProvisionEnv WithReporter(const ProvisionEnv& env, core::Reporter& reporter);

struct StepContext {
  ProvisionEnv& env;  // the step's own: its reporter; dry_run set when planning
  const StackEnv& stack_env;
  const Stack& stack;
  const StepPlan* plan = nullptr;  // what the plan found (a differing resource, with --recreate)
  // Something it needs was made anew in this run: what the ledger remembers of it (objects
  // applied to a cluster since deleted) no longer holds.
  bool needs_made_anew = false;
};

struct StepDone {
  std::vector<Outcome> outcomes;
  bool adopted = false;  // nothing made: it was there, or done before
  std::string detail;
};

core::Result<StepDone> DoStep(StepContext& context, const StackStep& step);

// What the ledger remembers of a step that made nothing of its own: done before with
// `fingerprint` (and nothing it needs made anew since), its detail, and remembering it.
bool DoneBefore(const StepContext& context, const std::string& id, const std::string& fingerprint);
std::string MemoDetail(const StepContext& context, const std::string& id);
void Remember(ProvisionEnv& env, const std::string& id, const std::string& fingerprint, const std::string& detail);

// The GKE cluster `cluster`, as cleanup reaches it again.
core::Result<std::unique_ptr<k8s::Connection>> Connect(const StepContext& context,
                                                       const gcp::container::ClusterRef& cluster);

// A log's new piece shown as the step's live line under `task`: its last non-empty line.
void ShowLastLine(core::Reporter& reporter, std::string_view task, std::string_view text);

// What the run ledger remembers of step `id` (an empty object when nothing).
nlohmann::json MemoOf(const StepContext& context, const std::string& id);

// The workload when it is a Ray job on a TPU VM's Ray (stack_job.cc).
core::Result<StepDone> RunRayJob(StepContext& context, const StackStep& step);
// The TPU VM a workload runs on, in the zone it was made in (the run ledger's, when zones chose).
core::Result<gcp::tpu::NodeRef> TpuVmOfWorkload(const StepContext& context, const StackWorkload& workload);

// The workload when it is a served model (stack_serve.cc).
core::Result<StepDone> RunServe(StepContext& context, const StackStep& step);

// The plan of a step that makes no cloud resource of its own (image, apply, workload): done
// before with the same values (adopt), or to run; nothing is read but the ledger.
StepPlan PlanRecordedStep(const StepContext& context, const StackStep& step);

// The image step's fingerprint: the tag and every byte of its context (the rendered files, or
// the directory's), so that an unchanged context is not built again.
core::Result<std::string> ImageFingerprint(const StackImage& image);

}  // namespace tputrain::workflow::internal
