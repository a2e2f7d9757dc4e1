#include "provision_steps.h"

#include <limits>
#include <optional>

#include "tputrain/core/poll.h"

namespace tputrain::workflow::internal {
namespace {

using state::EntryState;

bool PreviouslyOwned(ProvisionEnv& env, ResourceKind kind, const std::string& resource) {
  if (env.ledger == nullptr) return false;
  auto ledger = env.ledger->Load(env.run_id);
  if (!ledger) return false;
  auto* entry = ledger->Find(kind, resource);
  return entry != nullptr && entry->owned && entry->state != EntryState::kDeleted;
}

void Warn(ProvisionEnv& env, const core::Status& status) {
  if (!status) env.reporter.Warn("run ledger: " + status.error().message);
}

void Record(ProvisionEnv& env, ResourceKind kind, const std::string& resource, EntryState state,
            const std::string& operation = "", const std::string& at = "") {
  if (env.ledger == nullptr) return;
  Warn(env, env.ledger->RecordState(env.run_id, kind, resource, state, operation, at));
}

void RecordOwner(ProvisionEnv& env, ResourceKind kind, const std::string& resource, bool owned) {
  if (env.ledger == nullptr) return;
  Warn(env, env.ledger->Update(env.run_id, [&](state::Ledger& ledger) {
    if (auto* entry = ledger.Find(kind, resource)) entry->owned = owned;
  }));
}

bool Contains(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

Outcome MakeOutcome(const CreateSteps& steps, OutcomeAction action, std::string operation = "") {
  return Outcome{steps.kind, steps.name, steps.resource, action, std::move(operation), steps.details};
}

// The resource after a failed create: it may exist (GKE keeps a pool in ERROR after a stockout),
// unusable, so it is `failed`, for cleanup to delete and no re-run to adopt; or it is gone.
void RecordWhatExists(ProvisionEnv& env, const CreateSteps& steps) {
  auto existing = steps.inspect();
  if (existing) {
    Record(env, steps.kind, steps.resource, EntryState::kFailed);
  } else if (existing.error().kind == core::ErrorKind::kNotFound) {
    Record(env, steps.kind, steps.resource, EntryState::kDeleted);
  }
  // Anything else: the entry stays `creating`, which cleanup resolves by looking again.
}

}  // namespace

core::Error NotRecorded(const std::string& what, const core::Error& cause) {
  core::Error error =
      core::Error::Make(core::ErrorKind::kFailedPrecondition,
                        what + " was not created: the run ledger cannot record it (" + cause.message + ")");
  return error;
}

core::Error DiffersError(const std::string& task, const std::vector<std::string>& differences) {
  std::string fields;
  for (const auto& item : differences) fields += "\n  " + item;
  core::Error error =
      core::Error::Make(core::ErrorKind::kAlreadyExists, task + " exists with a different shape:" + fields);
  error.http_status = 409;
  return error;
}

std::string RunLabelOf(const std::map<std::string, std::string>& labels) {
  auto it = labels.find(kRunLabel);
  return it == labels.end() ? "" : it->second;
}

std::string Seconds(std::chrono::milliseconds elapsed) { return std::to_string(elapsed.count() / 1000) + "s"; }

bool IsAmbiguous(const core::Error& error) {
  if (error.http_status >= 500) return true;
  return error.http_status == 0 &&
         (error.kind == core::ErrorKind::kUnavailable || error.kind == core::ErrorKind::kDeadlineExceeded);
}

bool IsClusterBusy(const core::Error& error) {
  if (error.kind == core::ErrorKind::kFailedPrecondition) {
    return error.reason == "CLUSTER_ALREADY_HAS_OPERATION" || Contains(error.message, "incompatible operation") ||
           Contains(error.message, "Please wait and try again") || Contains(error.message, "currently being");
  }
  if (error.kind == core::ErrorKind::kResourceExhausted) {
    return Contains(error.message, "concurrent operations") || Contains(error.message, "Too many operations");
  }
  return false;
}

core::Result<std::string> RetryWhileBusy(ProvisionEnv& env, const std::string& task,
                                         const std::function<core::Result<std::string>()>& call) {
  // A busy cluster is waited out for as long as busy_retry allows; then its last answer stands.
  core::PollOptions options = env.busy_retry;
  options.is_transient = IsClusterBusy;
  options.transient_failures = std::numeric_limits<int>::max();
  options.on_timeout = core::OnTimeout::kLastError;
  std::optional<core::Result<std::string>> result;
  auto waited = core::PollUntil(
      [&]() -> core::Result<bool> {
        result = call();
        if (*result || !IsClusterBusy(result->error())) return true;
        env.reporter.Progress(task, "waiting: the cluster is busy (" + result->error().message + ")");
        return core::Fail(result->error());
      },
      // No cancel token: the call is made at least once, as before; a Ctrl-C ends the sleep.
      options, {env.clock, env.sleeper, nullptr});
  if (!waited) return core::Fail(waited.error());
  return std::move(*result);
}

namespace {

// A create that met an existing resource. It is this run's when the ledger said so before the
// create, or when it carries this run's label (another process of the run created it): never
// decided by who read it first. It is adopted only once usable: a create still running (another
// process's, or one a kill cut short) is waited for, a failed one is reported with the API's
// status, and one of another shape names the fields.
core::Result<Outcome> Adopt(ProvisionEnv& env, const CreateSteps& steps, bool owned_before) {
  const std::string task = std::string(state::KindName(steps.kind)) + " " + steps.name;
  auto existing = steps.inspect();
  if (!existing) return core::Fail(existing.error());
  const bool ours = owned_before || (!env.run_id.empty() && existing->run_label == env.run_id);
  RecordOwner(env, steps.kind, steps.resource, ours);
  if (!existing->differences.empty()) {
    Record(env, steps.kind, steps.resource, EntryState::kCreated);  // it runs, in another shape
    return core::Fail(DiffersError(task, existing->differences));
  }
  env.reporter.Progress(task, "exists; waiting until it is usable");
  auto ready = gcp::operations::PollUntilDone(steps.ready, env.poll, env);
  if (!ready) {
    if (ready.error().kind == core::ErrorKind::kDeadlineExceeded || ready.error().kind == core::ErrorKind::kCancelled) {
      return core::Fail(ready.error());
    }
    if (env.recreate_unusable && steps.remove) {
      // Asked for: the broken one goes, whoever made it, and this run creates and owns the new one.
      env.reporter.Progress(task,
                            "exists but is not usable (" + ready.error().message + "); deleting it to create it again");
      auto removed = steps.remove();
      if (!removed) return core::Fail(removed.error());
      ProvisionEnv once = env;
      once.recreate_unusable = false;  // one replacement per command: a second failure is reported
      return RunCreate(once, steps);
    }
    Record(env, steps.kind, steps.resource, EntryState::kFailed);  // for cleanup, never adopted
    core::Error error = ready.error();
    error.kind = core::ErrorKind::kFailedPrecondition;
    error.message = task + " exists but is not usable (" + error.message + "); delete it" +
                    (steps.delete_command.empty() ? "" : " (" + steps.delete_command + ")") +
                    " and run again, or run again with --recreate-unusable";
    env.reporter.Done(task, "exists, not usable");
    return core::Fail(error);
  }
  Record(env, steps.kind, steps.resource, EntryState::kCreated);
  const OutcomeAction action = ours ? OutcomeAction::kResumed : OutcomeAction::kAdopted;
  env.reporter.Done(task, std::string(OutcomeActionPhrase(action)));
  return MakeOutcome(steps, action);
}

}  // namespace

core::Result<Outcome> RunCreate(ProvisionEnv& env, const CreateSteps& steps) {
  const std::string task = std::string(state::KindName(steps.kind)) + " " + steps.name;
  if (env.dry_run != nullptr) {
    if (env.look_first) {
      // Only reads go out: what exists is reported as it is.
      auto existing = steps.inspect();
      if (existing && !existing->differences.empty()) return core::Fail(DiffersError(task, existing->differences));
      if (existing) return MakeOutcome(steps, OutcomeAction::kAdopted);
    }
    env.dry_run->push_back(steps.request);
    return MakeOutcome(steps, OutcomeAction::kWouldSend);
  }
  bool owned_before = PreviouslyOwned(env, steps.kind, steps.resource);
  if (env.ledger != nullptr) {
    // Recorded first, or not sent: what no ledger holds, no cleanup finds.
    auto recorded = env.ledger->RecordCreating(
        env.run_id, state::LedgerEntry{.kind = steps.kind, .name = steps.resource, .details = steps.details});
    if (!recorded) return core::Fail(NotRecorded(task, recorded.error()));
  }
  if (env.look_first) {
    // Recorded (above) as a create would be, then adopted as a 409 would have it, unsent.
    if (auto existing = steps.inspect(); existing) return Adopt(env, steps, owned_before);
  }
  env.reporter.Progress(task, "creating");
  auto posted = steps.post();
  if (!posted && IsAmbiguous(posted.error())) {
    // The create may have landed: look before sending it again.
    auto existing = steps.inspect();
    if (existing) {
      env.reporter.Progress(task, "the create's reply was lost; it exists, waiting for it");
      auto ready = gcp::operations::PollUntilDone(steps.ready, env.poll, env);
      if (!ready) return core::Fail(steps.explain ? steps.explain(ready.error()) : ready.error());
      Record(env, steps.kind, steps.resource, EntryState::kCreated);
      env.reporter.Done(task, "created");
      return MakeOutcome(steps, OutcomeAction::kCreated);
    }
    if (existing.error().kind != core::ErrorKind::kNotFound) return core::Fail(posted.error());
    posted = steps.post();  // not there: this second create is not a blind one
  }
  if (!posted && posted.error().kind == core::ErrorKind::kAlreadyExists) return Adopt(env, steps, owned_before);
  if (!posted) {
    Record(env, steps.kind, steps.resource, EntryState::kDeleted);
    env.reporter.Done(task, "failed");
    return core::Fail(steps.explain ? steps.explain(posted.error()) : posted.error());
  }
  const std::string operation = *posted;
  if (operation.empty()) {
    Record(env, steps.kind, steps.resource, EntryState::kCreated);
    env.reporter.Done(task, "created");
    return MakeOutcome(steps, OutcomeAction::kCreated);
  }
  Record(env, steps.kind, steps.resource, EntryState::kCreating, operation);
  if (env.async) {
    env.reporter.Done(task, "started (operation " + operation + ")");
    return MakeOutcome(steps, OutcomeAction::kStarted, operation);
  }
  auto waited = steps.wait(operation);
  if (!waited) {
    if (waited.error().kind == core::ErrorKind::kDeadlineExceeded ||
        waited.error().kind == core::ErrorKind::kCancelled) {
      env.reporter.Done(task, "still running (operation " + operation + ")");
      return core::Fail(waited.error());  // the entry stays `creating` with its operation
    }
    RecordWhatExists(env, steps);
    env.reporter.Done(task, "failed");
    return core::Fail(steps.explain ? steps.explain(waited.error()) : waited.error());
  }
  Record(env, steps.kind, steps.resource, EntryState::kCreated, operation, steps.ended_at ? steps.ended_at() : "");
  env.reporter.Done(task, "created");
  return MakeOutcome(steps, OutcomeAction::kCreated, operation);
}

core::Result<Outcome> RunDelete(ProvisionEnv& env, const DeleteSteps& steps) {
  Outcome outcome{steps.kind, steps.name, steps.resource, OutcomeAction::kDeleted, "", nlohmann::json::object()};
  if (env.dry_run != nullptr) {
    env.dry_run->push_back(steps.request);
    outcome.action = OutcomeAction::kWouldSend;
    return outcome;
  }
  const std::string task = std::string(state::KindName(steps.kind)) + " " + steps.name;
  env.reporter.Progress(task, "deleting");
  auto sent = steps.send();
  if (!sent && sent.error().kind == core::ErrorKind::kNotFound) {
    Record(env, steps.kind, steps.resource, EntryState::kDeleted);
    env.reporter.Done(task, "already gone");
    outcome.action = OutcomeAction::kAlreadyGone;
    return outcome;
  }
  if (!sent) {
    env.reporter.Done(task, "failed");
    return core::Fail(sent.error());
  }
  outcome.operation = *sent;
  if (!outcome.operation.empty()) {
    Record(env, steps.kind, steps.resource, EntryState::kDeleting, outcome.operation);
    if (env.async) {
      env.reporter.Done(task, "deleting (operation " + outcome.operation + ")");
      outcome.action = OutcomeAction::kStarted;
      return outcome;
    }
    auto waited = steps.wait(outcome.operation);
    if (!waited) {
      env.reporter.Done(task, "failed");
      return core::Fail(waited.error());
    }
  }
  Record(env, steps.kind, steps.resource, EntryState::kDeleted, outcome.operation,
         steps.ended_at && !outcome.operation.empty() ? steps.ended_at() : "");
  env.reporter.Done(task, "deleted");
  outcome.action = OutcomeAction::kDeleted;
  return outcome;
}

}  // namespace tputrain::workflow::internal
