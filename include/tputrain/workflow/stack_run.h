#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/error.h"
#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"
#include "tputrain/k8s/connect.h"
#include "tputrain/state/access_record.h"
#include "tputrain/workflow/provision.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/stack.h"
#include "tputrain/workflow/submit_flow.h"

// `tputrain up`, `status` and `down` of a stack: its plan (what each step finds: to create, to
// adopt, or of another shape), and the run, each step started as soon as what it needs is done,
// through the same workflow calls as the commands, recorded in the run ledger named after the
// stack.
namespace tputrain::workflow {

// What a step will do, as its reads say.
enum class PlanAction {
  kCreate,   // "create": nothing there; the requests are what it sends
  kAdopt,    // "adopt": there, as the file says (or done before, with the same values)
  kDiffers,  // "differs": there, in another shape (the fields say which)
  kRun,      // "run": the workload, or a step whose reads cannot be made before what it needs
  kUnknown,  // "unknown": its reads failed (the note says why); the run will try
};
std::string_view PlanActionName(PlanAction action);

struct StepPlan {
  std::string id;
  PlanAction action = PlanAction::kCreate;
  std::vector<std::string> needs;
  std::vector<std::string> differences;  // kDiffers: "machineType: want X, have Y"
  std::vector<http::Request> requests;   // kCreate: what it would send
  std::string note;
};

// Where a step stands in a run.
enum class StepState {
  kWaiting,    // "waiting": for what it needs
  kRunning,    // "running"
  kDone,       // "done": made it (or finished it)
  kAdopted,    // "adopted": it was there (or done before)
  kFailed,     // "failed"
  kSkipped,    // "skipped": something it needs failed, or --skip
  kCancelled,  // "interrupted": Ctrl-C; `up` again resumes it
};
std::string_view StepStateName(StepState state);

struct StepResult {
  std::string id;
  StepState state = StepState::kWaiting;
  std::string detail;  // what it waits for, the outcome, or why it failed
  std::chrono::milliseconds elapsed{0};
  std::vector<Outcome> outcomes;
  std::optional<core::Error> error;
};

// Who is told as the run goes: a line per change of state, and each running step's latest word.
class StackObserver {
 public:
  virtual ~StackObserver() = default;
  virtual void Changed(const StepResult& step) = 0;
  virtual void Progress(std::string_view id, std::string_view detail) = 0;
};

// How steps on the cluster reach it (set by the composition root: credentials and TLS are its).
struct StackReach {
  // The Kubernetes cluster of `access` (as cleanup reaches it again).
  std::function<core::Result<std::unique_ptr<k8s::Connection>>(const state::AccessRecord& access)> connect_cluster;
  // submit's environment for a RayCluster on the GKE cluster `cluster`, in namespace `ns`,
  // recording in the stack's run.
  std::function<core::Result<std::shared_ptr<SubmitEnv>>(const gcp::container::ClusterRef& cluster,
                                                         const std::string& ns)>
      submit_env;
  // submit's environment for the Ray of the TPU VM `node` (made with Ray), recording in the
  // stack's run.
  std::function<core::Result<std::shared_ptr<SubmitEnv>>(const gcp::tpu::NodeRef& node)> submit_env_on_tpu_vm;
  // A session with the Ray head of the TPU VM `node` (through IAP, as `job submit --tpu-vm`), its
  // token held by the redactor.
  std::function<core::Result<std::unique_ptr<RaySession>>(const gcp::tpu::NodeRef& node)> connect_tpu_vm_ray;
  // Plain downloads (an operator's release manifest, for a served model's LeaderWorkerSet).
  http::Transport* downloads = nullptr;
};

struct StackEnv {
  // The Google APIs, the ledger (whose run is the stack's name), time, Ctrl-C and the reporter.
  // Its dry_run, when set, makes PlanStack collect requests there.
  ProvisionEnv provision;
  StackReach reach;
  StackObserver* observer = nullptr;
  // --recreate: a step whose resource differs deletes it and creates it as the file says.
  bool recreate = false;
  // --skip: these steps (and what needs them) are not run.
  std::vector<std::string> skip;
};

// Every step's plan, from reads only (each step's create, dry, looking first); nothing is sent
// or recorded. A step whose cluster does not exist yet is planned as kRun.
std::vector<StepPlan> PlanStack(StackEnv& env, const Stack& stack);

// The plan's refusal, when a step differs and --recreate is not given: one line per step and
// field (kAlreadyExists, exit 1); nothing has been sent.
std::optional<core::Error> DiffersError(const Stack& stack, const std::vector<StepPlan>& plan, bool recreate);

// Runs the stack: each step once all it needs are done, in parallel with the others; a failed
// step skips what needs it and lets the rest finish. Ctrl-C stops the waits (the steps end
// interrupted, the ledger holding what they began) and starts nothing new. Returns a result per
// step, in the stack's order.
std::vector<StepResult> RunStack(StackEnv& env, const Stack& stack, const std::vector<StepPlan>& plan);

// What a run's results say as an exit: ok, or the first failure's kind (a Ctrl-C: kCancelled).
core::Status StackOutcome(const std::vector<StepResult>& results);

nlohmann::json ToJson(const std::vector<StepPlan>& plan);
nlohmann::json ToJson(const std::vector<StepResult>& results);

// `status -f`: each step as the ledger and the reads see it.
struct StepStatus {
  std::string id;
  std::string state;  // "up", "not made", "differs", "failed", "creating", "done", ...
  std::string detail;
};
std::vector<StepStatus> StackStatus(StackEnv& env, const Stack& stack);
nlohmann::json ToJson(const std::vector<StepStatus>& statuses);

}  // namespace tputrain::workflow
