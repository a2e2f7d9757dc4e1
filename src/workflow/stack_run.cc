// The stack's plan and its run: each step as soon as what it needs is done.
#include "tputrain/workflow/stack_run.h"

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "stack_steps.h"

namespace tputrain::workflow {
namespace {

using internal::StepContext;
using nlohmann::json;

// A step's reporter: what the workflow says as it works becomes the step's live line; warnings
// go on to the command's own reporter, named after the step.
class StepReporter final : public core::Reporter {
 public:
  StepReporter(std::string id, StackObserver* observer, core::Reporter& parent)
      : id_(std::move(id)), observer_(observer), parent_(parent) {}
  void Info(std::string_view message) override { Say(message); }
  void Warn(std::string_view message) override { parent_.Warn(id_ + ": " + std::string(message)); }
  void Progress(std::string_view task, std::string_view state) override {
    Say(std::string(task) + ": " + std::string(state));
  }
  void Done(std::string_view task, std::string_view outcome) override {
    Say(std::string(task) + ": " + std::string(outcome));
  }
  void Debug(std::string_view message) override { parent_.Debug(id_ + ": " + std::string(message)); }

 private:
  void Say(std::string_view text) {
    if (observer_ != nullptr) observer_->Progress(id_, text);
  }
  std::string id_;
  StackObserver* observer_;
  core::Reporter& parent_;
};

bool IsSkipped(const StackEnv& env, const StackStep& step) {
  return std::find(env.skip.begin(), env.skip.end(), step.id) != env.skip.end() ||
         std::find(env.skip.begin(), env.skip.end(), std::string(StepKindName(step.kind))) != env.skip.end();
}

// A plan from the step's dry create (reads only): what each outcome says.
StepPlan PlanFromCreate(StepContext& context, const StackStep& step, std::vector<http::Request>& requests) {
  StepPlan plan{step.id, PlanAction::kCreate, step.needs, {}, {}, ""};
  auto done = internal::DoStep(context, step);
  if (!done) {
    const core::Error& error = done.error();
    if (error.kind == core::ErrorKind::kAlreadyExists) {
      plan.action = PlanAction::kDiffers;
      const std::string& message = error.message;
      for (size_t at = message.find("\n  "); at != std::string::npos; at = message.find("\n  ", at + 1)) {
        const size_t end = message.find('\n', at + 1);
        plan.differences.push_back(message.substr(at + 3, end == std::string::npos ? end : end - at - 3));
      }
    } else {
      plan.action = PlanAction::kUnknown;
      plan.note = error.message.substr(0, error.message.find('\n'));
    }
    return plan;
  }
  plan.requests = std::move(requests);
  if (plan.requests.empty()) {
    plan.action = PlanAction::kAdopt;
    plan.note = step.kind == StepKind::kServices ? done->detail : "exists, as the file says";
  }
  return plan;
}

bool ClusterWillBeMade(const std::map<std::string, StepPlan>& plans) {
  auto it = plans.find("cluster");
  return it != plans.end() && it->second.action != PlanAction::kAdopt;
}

}  // namespace

std::string_view PlanActionName(PlanAction action) {
  switch (action) {
    case PlanAction::kCreate:
      return "create";
    case PlanAction::kAdopt:
      return "adopt";
    case PlanAction::kDiffers:
      return "differs";
    case PlanAction::kRun:
      return "run";
    case PlanAction::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::string_view StepStateName(StepState state) {
  switch (state) {
    case StepState::kWaiting:
      return "waiting";
    case StepState::kRunning:
      return "running";
    case StepState::kDone:
      return "done";
    case StepState::kAdopted:
      return "adopted";
    case StepState::kFailed:
      return "failed";
    case StepState::kSkipped:
      return "skipped";
    case StepState::kCancelled:
      return "interrupted";
  }
  return "unknown";
}

std::vector<StepPlan> PlanStack(StackEnv& env, const Stack& stack) {
  std::map<std::string, StepPlan> plans;
  std::vector<StepPlan> ordered(stack.steps.size());
  std::mutex mutex;
  core::NullReporter quiet;
  // Each step's reads are independent: they go together.
  auto plan_one = [&](size_t i) {
    const StackStep& step = stack.steps[i];
    std::vector<http::Request> requests;
    ProvisionEnv step_env = internal::WithReporter(env.provision, quiet);
    step_env.dry_run = &requests;
    step_env.look_first = true;
    StepContext context{step_env, env, stack, nullptr};
    StepPlan plan;
    if (step.kind == StepKind::kImage || step.kind == StepKind::kApply || step.kind == StepKind::kWorkload) {
      plan = internal::PlanRecordedStep(context, step);
    } else {
      plan = PlanFromCreate(context, step, requests);
    }
    std::lock_guard lock(mutex);
    ordered[i] = plan;
    plans[step.id] = std::move(plan);
  };
  std::vector<std::thread> threads;
  for (size_t i = 0; i < stack.steps.size(); ++i) threads.emplace_back(plan_one, i);
  for (auto& thread : threads) thread.join();
  // What runs on a cluster that is not there yet cannot be read before it is.
  if (ClusterWillBeMade(plans)) {
    for (auto& plan : ordered) {
      if (plan.action == PlanAction::kUnknown && plan.id.rfind("nodepool/", 0) == 0) {
        plan.action = PlanAction::kCreate;
        plan.note = "once the cluster runs";
      }
    }
  }
  for (size_t i = 0; i < ordered.size(); ++i) {
    if (IsSkipped(env, stack.steps[i])) {
      ordered[i].note = "skipped (--skip)";
      ordered[i].requests.clear();
    }
  }
  return ordered;
}

std::optional<core::Error> DiffersError(const Stack& stack, const std::vector<StepPlan>& plan, bool recreate) {
  if (recreate) return std::nullopt;
  std::string lines;
  for (const auto& step : plan) {
    if (step.action != PlanAction::kDiffers) continue;
    const StackStep* found = stack.Find(step.id);
    for (const auto& field : step.differences) {
      lines += (lines.empty() ? "" : "\n") + stack.file + ":" + std::to_string(found ? found->line : 0) + ": " +
               step.id + ": " + field;
    }
  }
  if (lines.empty()) return std::nullopt;
  core::Error error = core::Error::Make(
      core::ErrorKind::kAlreadyExists,
      lines +
          "\n  exists in another shape than the file says; nothing was changed. Make the file say what "
          "exists, or run again with --recreate to delete it and create it as the file says");
  return error;
}

std::vector<StepResult> RunStack(StackEnv& env, const Stack& stack, const std::vector<StepPlan>& plan) {
  const size_t count = stack.steps.size();
  std::vector<StepResult> results(count);
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < count; ++i) {
    index[stack.steps[i].id] = i;
    results[i].id = stack.steps[i].id;
  }
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<bool> started(count, false), finished(count, false), made_anew(count, false);
  std::vector<std::chrono::steady_clock::time_point> began(count);
  std::vector<std::thread> threads;
  auto tell = [&](size_t i) {
    if (env.observer != nullptr) env.observer->Changed(results[i]);
  };
  // Steps waiting for others say which.
  for (size_t i = 0; i < count; ++i) {
    const auto& needs = stack.steps[i].needs;
    std::string waits;
    for (const auto& need : needs) waits += (waits.empty() ? "" : ", ") + need;
    results[i].detail = waits.empty() ? "" : "waits for " + waits;
    if (!needs.empty()) tell(i);
  }
  auto run_one = [&](size_t i, bool anew) {
    const StackStep& step = stack.steps[i];
    StepReporter reporter(step.id, env.observer, env.provision.reporter);
    ProvisionEnv step_env = internal::WithReporter(env.provision, reporter);
    step_env.look_first = true;
    StepContext context{step_env, env, stack, i < plan.size() ? &plan[i] : nullptr, anew};
    auto done = internal::DoStep(context, step);
    std::lock_guard lock(mutex);
    StepResult& result = results[i];
    result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began[i]);
    if (done) {
      result.state = done->adopted ? StepState::kAdopted : StepState::kDone;
      result.detail = done->detail;
      result.outcomes = std::move(done->outcomes);
    } else {
      result.state = done.error().kind == core::ErrorKind::kCancelled ? StepState::kCancelled : StepState::kFailed;
      result.detail = done.error().message;
      result.error = done.error();
    }
    finished[i] = true;
    tell(i);
    changed.notify_all();
  };
  std::unique_lock lock(mutex);
  while (true) {
    bool progress = true;
    while (progress) {
      progress = false;
      for (size_t i = 0; i < count; ++i) {
        if (started[i]) continue;
        const StackStep& step = stack.steps[i];
        std::string blocked;
        bool ready = true;
        for (const auto& need : step.needs) {
          const size_t j = index[need];
          if (!finished[j]) {
            ready = false;
            continue;
          }
          const StepState state = results[j].state;
          if (state != StepState::kDone && state != StepState::kAdopted) blocked = need;
        }
        const bool cancelled = env.provision.cancel != nullptr && env.provision.cancel->cancelled();
        if (IsSkipped(env, step) || !blocked.empty() || (ready && cancelled)) {
          started[i] = finished[i] = true;
          results[i].state = cancelled && blocked.empty() ? StepState::kCancelled : StepState::kSkipped;
          results[i].detail = IsSkipped(env, step) ? "--skip"
                              : !blocked.empty()   ? "not run: " + blocked + " " +
                                                       std::string(StepStateName(results[index[blocked]].state))
                                                 : "not started (interrupted)";
          tell(i);
          progress = true;
          continue;
        }
        if (!ready) continue;
        for (const auto& need : step.needs) {
          const size_t j = index[need];
          made_anew[i] = made_anew[i] || made_anew[j] || results[j].state == StepState::kDone;
        }
        started[i] = true;
        began[i] = std::chrono::steady_clock::now();
        results[i].state = StepState::kRunning;
        results[i].detail.clear();
        tell(i);
        threads.emplace_back(run_one, i, static_cast<bool>(made_anew[i]));
        progress = true;
      }
    }
    if (std::all_of(finished.begin(), finished.end(), [](bool f) { return f; })) break;
    changed.wait(lock);
  }
  lock.unlock();
  for (auto& thread : threads) thread.join();
  return results;
}

core::Status StackOutcome(const std::vector<StepResult>& results) {
  std::optional<core::Error> first;
  std::string failed;
  bool cancelled = false;
  for (const auto& result : results) {
    if (result.state == StepState::kCancelled) cancelled = true;
    if (result.state != StepState::kFailed) continue;
    failed += (failed.empty() ? "" : ", ") + result.id;
    if (!first && result.error) first = result.error;
  }
  if (cancelled) return core::Fail(core::Error::Cancelled());
  if (!first) return {};
  // Each step's failure was its line above; this says which failed, with the first one's kind.
  core::Error error = core::Error::Make(first->kind, "failed: " + failed);
  error.http_status = first->http_status;
  return core::Fail(error);
}

json ToJson(const std::vector<StepPlan>& plan) {
  json steps = json::array();
  for (const auto& step : plan) {
    json requests = json::array();
    for (const auto& request : step.requests) {
      json item = {{"method", request.method}, {"url", request.url}};
      if (!request.body.empty()) {
        auto body = json::parse(request.body, nullptr, false);
        item["body"] = body.is_discarded() ? json(request.body) : body;
      }
      requests.push_back(item);
    }
    json item = {{"step", step.id},
                 {"action", std::string(PlanActionName(step.action))},
                 {"needs", step.needs},
                 {"requests", requests}};
    if (!step.differences.empty()) item["differences"] = step.differences;
    if (!step.note.empty()) item["note"] = step.note;
    steps.push_back(item);
  }
  return steps;
}

json ToJson(const std::vector<StepResult>& results) {
  json steps = json::array();
  for (const auto& result : results) {
    steps.push_back({{"step", result.id},
                     {"state", std::string(StepStateName(result.state))},
                     {"detail", result.detail},
                     {"elapsed_s", static_cast<double>(result.elapsed.count()) / 1000.0},
                     {"resources", ToJson(result.outcomes)}});
  }
  return steps;
}

std::vector<StepStatus> StackStatus(StackEnv& env, const Stack& stack) {
  const auto plan = PlanStack(env, stack);
  std::optional<state::Ledger> ledger;
  if (env.provision.ledger != nullptr) {
    if (auto loaded = env.provision.ledger->Load(env.provision.run_id); loaded) ledger = std::move(*loaded);
  }
  std::vector<StepStatus> statuses;
  for (const auto& step : plan) {
    StepStatus status{step.id, "", step.note};
    switch (step.action) {
      case PlanAction::kAdopt:
        status.state = "up";
        break;
      case PlanAction::kCreate:
        status.state = "not made";
        break;
      case PlanAction::kDiffers:
        status.state = "differs";
        status.detail.clear();
        for (const auto& field : step.differences) status.detail += (status.detail.empty() ? "" : "; ") + field;
        break;
      case PlanAction::kRun:
        status.state = "not run";
        break;
      case PlanAction::kUnknown:
        status.state = "unknown";
        break;
    }
    if (ledger && step.action == PlanAction::kCreate) {
      // What the ledger says of something the APIs no longer (or not yet) show.
      for (const auto& entry : ledger->entries) {
        const std::string kind(state::KindName(entry.kind));
        if (entry.state != state::EntryState::kDeleted && step.id.rfind(kind, 0) == 0 &&
            entry.name.find(step.id.substr(step.id.find('/') + 1)) != std::string::npos) {
          status.detail = "the ledger has it " + std::string(state::EntryStateName(entry.state));
        }
      }
    }
    statuses.push_back(std::move(status));
  }
  return statuses;
}

json ToJson(const std::vector<StepStatus>& statuses) {
  json steps = json::array();
  for (const auto& status : statuses) {
    steps.push_back({{"step", status.id}, {"state", status.state}, {"detail", status.detail}});
  }
  return steps;
}

}  // namespace tputrain::workflow
