// The stack's Ray job (workload.job): `job submit --tpu-vm` followed to its end, recorded in the
// run so that `down` stops it if it outlives an interrupted `up`, and a second `up` follows the
// same job again instead of starting another.
#include "stack_steps.h"
#include "tputrain/core/timestamp.h"
#include "tputrain/ray/entrypoint.h"
#include "tputrain/ray/log_follower.h"
#include "tputrain/workflow/ledger_entries.h"

namespace tputrain::workflow::internal {
namespace {

using nlohmann::json;

// The step's memo while its job runs: the job to follow again, with the values it was started with.
void RememberSubmitted(ProvisionEnv& env, const StackStep& step, const std::string& id) {
  if (env.ledger == nullptr) return;
  auto written = env.ledger->Update(env.run_id, [&](state::Ledger& ledger) {
    ledger.steps[step.id] = {{"fingerprint", step.fingerprint},
                             {"state", "submitted"},
                             {"submission_id", id},
                             {"at", core::FormatTimestamp(env.clock.WallNow())}};
  });
  if (!written) env.reporter.Warn("run ledger: " + written.error().message);
}

// A job this step submitted with the same values and that may still be running: its id, else "".
std::string SubmittedBefore(const StepContext& context, const StackStep& step) {
  const json memo = MemoOf(context, step.id);
  if (memo.value("state", "") != "submitted" || memo.value("fingerprint", "") != step.fingerprint) return "";
  return memo.value("submission_id", "");
}

// Sends the job: its id fixed and recorded first (a create that cannot be recorded is not sent),
// the local working_dir zipped and uploaded.
core::Result<std::string> SubmitRecordedJob(StepContext& context, const StackStep& step, ray::JobsClient& client,
                                            const gcp::tpu::NodeRef& node) {
  ProvisionEnv& env = context.env;
  std::string local_dir;
  auto request = step.workload->job->Build(local_dir);
  if (!request) return core::Fail(request.error());
  if (request->submission_id.empty()) request->submission_id = client.options().make_submission_id();
  const auto entry = RayJobEntry(request->submission_id, RayJobTarget::OnTpuVmRay(node, "iap"));
  const LedgerRecorder recorder{env.ledger, env.run_id};
  if (auto recorded = recorder.Creating(entry); !recorded) return core::Fail(recorded.error());
  if (!local_dir.empty()) {
    env.reporter.Progress("job", "uploading " + local_dir);
    auto uri = client.UploadWorkingDir(local_dir);
    if (!uri) return core::Fail(uri.error());
    request->runtime_env["working_dir"] = *uri;
  }
  auto submitted = client.Submit(*request);
  if (!submitted) return core::Fail(submitted.error());
  if (auto recorded = recorder.Created(entry); !recorded) return core::Fail(recorded.error());
  RememberSubmitted(env, step, submitted->submission_id);
  return submitted->submission_id;
}

}  // namespace

core::Result<gcp::tpu::NodeRef> TpuVmOfWorkload(const StepContext& context, const StackWorkload& workload) {
  gcp::tpu::NodeRef node = *workload.tpu_vm;
  if (!node.zone.empty()) return node;
  // `zones` chose where the stack's tpu-vm step made it: the run ledger names the zone.
  if (context.env.ledger != nullptr) {
    if (auto ledger = context.env.ledger->Load(context.env.run_id); ledger) {
      for (const auto& entry : ledger->entries) {
        if (entry.kind == state::ResourceKind::kTpuVm && entry.name == node.node &&
            entry.state != state::EntryState::kDeleted) {
          node.zone = entry.details.value("zone", "");
        }
      }
    }
  }
  if (node.zone.empty()) {
    return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                        "TPU VM " + node.node + ": the run ledger has no zone it was made in"));
  }
  return node;
}

core::Result<StepDone> RunRayJob(StepContext& context, const StackStep& step) {
  ProvisionEnv& env = context.env;
  if (DoneBefore(context, step.id, step.fingerprint)) {
    return StepDone{{}, true, "done before: " + MemoDetail(context, step.id)};
  }
  const auto& command = step.workload->job->command;
  if (env.dry_run != nullptr) return StepDone{{}, false, "would submit `" + ray::ShellJoin(command) + "`"};
  if (!context.stack_env.reach.connect_tpu_vm_ray) {
    return core::Fail(core::Error::Internal("no way to reach a TPU VM's Ray was given"));
  }
  auto node = TpuVmOfWorkload(context, *step.workload);
  if (!node) return core::Fail(node.error());
  env.reporter.Progress("job", "reaching the Ray head of " + node->node);
  auto session = context.stack_env.reach.connect_tpu_vm_ray(*node);
  if (!session) return core::Fail(session.error());
  ray::JobsClient& client = *(*session)->client;

  std::string id = SubmittedBefore(context, step);
  if (!id.empty()) {
    // Interrupted before: that job again, unless it ended in a way the file's values did not ask for.
    auto job = client.Get(id);
    if (!job || job->status == ray::JobStatus::kStopped || job->status == ray::JobStatus::kFailed) id.clear();
  }
  if (id.empty()) {
    auto submitted = SubmitRecordedJob(context, step, client, *node);
    if (!submitted) return core::Fail(submitted.error());
    id = *submitted;
  }
  env.reporter.Progress("job", id + " running");
  ray::FollowOptions options;
  options.cancel = env.cancel;
  options.on_notice = [&env](std::string_view notice) { env.reporter.Warn(notice); };
  ray::LogFollower follower(client, *(*session)->websocket, env.clock, env.sleeper, options);
  // The log's latest line is the step's live line.
  auto job = follower.Follow(id, [&env](std::string_view text) { ShowLastLine(env.reporter, "job", text); });
  if (!job) {
    if (job.error().kind == core::ErrorKind::kCancelled) {
      return core::Fail(core::Error::Make(core::ErrorKind::kCancelled,
                                          "job " + id + " keeps running: `up` again follows it, `down` stops it"));
    }
    return core::Fail(job.error());
  }
  StepDone done;
  done.detail = "job " + id + " " + job->status_text;
  if (job->status != ray::JobStatus::kSucceeded) {
    std::string message = job->message.value_or("");
    message = message.substr(0, message.find('\n'));
    return core::Fail(
        core::Error::Make(core::ErrorKind::kAborted, done.detail + (message.empty() ? "" : ": " + message)));
  }
  Remember(env, step.id, step.fingerprint, done.detail);
  return done;
}

}  // namespace tputrain::workflow::internal
