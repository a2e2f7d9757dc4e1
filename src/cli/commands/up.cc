// tputrain up -f STACK [--dry-run], tputrain status -f STACK: a stack file's steps, each run as
// soon as what it needs is done.
#include "commands/commands.h"
#include "output/output.h"
#include "output/stack_progress.h"
#include "tputrain/workflow/stack_session.h"

namespace tputrain::cli {
namespace {

std::string SecondsText(std::chrono::milliseconds elapsed) {
  const auto tenths = elapsed.count() / 100;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "s";
}

void PrintPlan(Context& context, const workflow::Stack& stack, const std::vector<workflow::StepPlan>& plan) {
  PrintResult(context, workflow::PlanJson(stack, plan, context.redactor), [&](std::ostream& out) {
    out << "stack " << stack.name << ": " << plan.size() << " steps (run " << stack.name << ")\n";
    for (const auto& step : plan) {
      std::string waits;
      for (const auto& need : step.needs) waits += (waits.empty() ? "" : ", ") + need;
      out << step.id << ": " << workflow::PlanActionName(step.action) << (waits.empty() ? "" : ", waits for " + waits)
          << (step.note.empty() ? "" : " (" + step.note + ")") << "\n";
      for (const auto& field : step.differences) out << "  differs: " << field << "\n";
      for (const auto& request : step.requests) {
        out << "  " << request.method << " " << request.url << "\n";
        if (!request.body.empty()) out << "  " << context.redactor(request.body) << "\n";
      }
    }
  });
}

void PrintResults(Context& context, const workflow::Stack& stack, const std::vector<workflow::StepResult>& results) {
  PrintResult(context, workflow::ToJson(stack, results), [&](std::ostream& out) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& result : results) {
      rows.push_back({result.id, std::string(workflow::StepStateName(result.state)), SecondsText(result.elapsed),
                      result.detail.substr(0, result.detail.find('\n'))});
    }
    PrintTable(out, {"step", "state", "time", "detail"}, rows);
    out << "run: " << stack.name << "\n";
  });
}

core::Result<int> RunUp(const workflow::StackCommand& flags, Context& context) {
  auto stack = workflow::LoadStackFile(context.stack(), flags.file);
  if (!stack) return core::Fail(stack.error());
  if (auto skips = workflow::CheckSkips(*stack, flags.skip); !skips) return core::Fail(skips.error());
  const bool dry_run = context.global.dry_run;
  StackProgress progress(context.err, context.stderr_is_tty, context.global.quiet, context.redactor);
  auto env = workflow::OpenStackEnv(context.stack(), *stack, flags, dry_run, &progress);
  if (!env) return core::Fail(env.error());
  auto plan = workflow::PlanStack(**env, *stack);
  if (dry_run) {
    PrintPlan(context, *stack, plan);
    return core::kExitOk;
  }
  // A resource of another shape than the file says stops it all here, before any change.
  if (auto differs = workflow::DiffersError(*stack, plan, flags.recreate)) return core::Fail(*differs);
  auto results = workflow::RunStack(**env, *stack, plan);
  progress.Finish();
  PrintResults(context, *stack, results);
  if (auto outcome = workflow::UpOutcome(*stack, results); !outcome) return core::Fail(outcome.error());
  return core::kExitOk;
}

core::Result<int> RunStatus(const workflow::StackCommand& flags, Context& context) {
  auto stack = workflow::LoadStackFile(context.stack(), flags.file);
  if (!stack) return core::Fail(stack.error());
  auto env = workflow::OpenStackEnv(context.stack(), *stack, flags, /*plan_only=*/true, nullptr);
  if (!env) return core::Fail(env.error());
  auto statuses = workflow::StackStatus(**env, *stack);
  PrintResult(context, workflow::ToJson(*stack, statuses), [&](std::ostream& out) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& status : statuses) rows.push_back({status.id, status.state, status.detail});
    PrintTable(out, {"step", "state", "detail"}, rows);
  });
  return core::kExitOk;
}

void AddFileFlags(CLI::App& command, workflow::StackCommand& flags) {
  command.add_option("-f,--file", flags.file, "The stack file (YAML)")->required()->type_name("FILE");
  command.add_option("--state-dir", flags.state_dir, "Run ledger directory (default: $XDG_STATE_HOME/tputrain)")
      ->type_name("DIR");
}

}  // namespace

void SetupUpCommand(CLI::App& root, Context& context) {
  auto flags = std::make_shared<workflow::StackCommand>();
  auto* up = root.add_subcommand(
      "up", "Make everything a stack file names, each step as soon as what it needs is there, then run its workload");
  AddFileFlags(*up, *flags);
  up->add_flag("--recreate", flags->recreate,
               "Delete what exists in another shape than the file says (a cluster, node pool, repository) and "
               "create it as the file says");
  up->add_option("--skip", flags->skip,
                 "Leave out these steps (or every step of a kind: apply,workload) and what needs them")
      ->type_name("STEP")
      ->delimiter(',');
  up->add_option("--timeout", flags->timeout, "Stop each wait after this long (e.g. 30m); `up` again resumes");
  up->footer(
      "Steps: services, cluster, nodepool/NAME, bucket, service-account/NAME, identity/NS/KSA, registry, image,\n"
      "apply, workload. The stack's name is the run: `tputrain down -f FILE` deletes what it made.\n"
      "A second `up` adopts what is there (reads only); Ctrl-C, then `up` again, resumes.\n"
      "Exit codes: 0 every step done, 1 a step failed or something differs from the file, 2 usage, 130 Ctrl-C.\n"
      "Examples:\n"
      "  tputrain up -f examples/001-train-llama3-8b-gke.yaml --dry-run\n"
      "  PROJECT=my-project tputrain up -f examples/001-train-llama3-8b-gke.yaml");
  up->callback([flags, &context] { context.outcome = RunUp(*flags, context); });

  auto status_flags = std::make_shared<workflow::StackCommand>();
  auto* status = root.add_subcommand("status", "Each step of a stack file as the run ledger and the APIs see it");
  AddFileFlags(*status, *status_flags);
  status->footer("Example:\n  tputrain status -f examples/001-train-llama3-8b-gke.yaml");
  status->callback([status_flags, &context] { context.outcome = RunStatus(*status_flags, context); });
}

}  // namespace tputrain::cli
