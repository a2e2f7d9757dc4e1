// tputrain up -f STACK [--dry-run], tputrain status -f STACK: a stack file's steps, each run as
// soon as what it needs is done.
#include "commands/commands.h"
#include "commands/stack_common.h"
#include "output/output.h"

namespace tputrain::cli {
namespace {

std::string SecondsText(std::chrono::milliseconds elapsed) {
  const auto tenths = elapsed.count() / 100;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "s";
}

void PrintPlan(Context& context, const workflow::Stack& stack, const std::vector<workflow::StepPlan>& plan) {
  nlohmann::json json = {{"stack", stack.name}, {"dry_run", true}, {"steps", workflow::ToJson(plan)}};
  for (auto& step : json["steps"]) {
    for (auto& request : step["requests"]) {
      if (!request.contains("body")) continue;
      const std::string shown = context.redactor(request["body"].dump());
      auto parsed = nlohmann::json::parse(shown, nullptr, /*allow_exceptions=*/false);
      request["body"] = parsed.is_discarded() ? nlohmann::json(shown) : parsed;
    }
  }
  PrintResult(context, json, [&](std::ostream& out) {
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
  nlohmann::json json = {{"stack", stack.name}, {"run", stack.name}, {"steps", workflow::ToJson(results)}};
  PrintResult(context, json, [&](std::ostream& out) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& result : results) {
      rows.push_back({result.id, std::string(workflow::StepStateName(result.state)), SecondsText(result.elapsed),
                      result.detail.substr(0, result.detail.find('\n'))});
    }
    PrintTable(out, {"step", "state", "time", "detail"}, rows);
    out << "run: " << stack.name << "\n";
  });
}

// A kind of step: what --skip may name though this stack has none (one --skip for every stack
// file of a CI matrix); a name that is neither a kind nor a step here is a typo.
bool IsStepKind(const std::string& name) {
  for (int kind = 0; kind <= static_cast<int>(workflow::StepKind::kWorkload); ++kind) {
    if (workflow::StepKindName(static_cast<workflow::StepKind>(kind)) == name) return true;
  }
  return false;
}

core::Result<int> RunUp(const StackFlags& flags, Context& context) {
  auto stack = ReadStackFile(context, flags.file);
  if (!stack) return core::Fail(stack.error());
  for (const auto& skip : flags.skip) {
    if (stack->Find(skip) == nullptr && !IsStepKind(skip)) {
      return core::Fail(core::Error::Usage("--skip: no step " + skip + " in " + flags.file));
    }
  }
  const bool dry_run = context.global.dry_run;
  StackProgress progress(context.err, context.stderr_is_tty, context.global.quiet, context.redactor);
  auto session = OpenStackSession(context, *stack, flags, dry_run, &progress);
  if (!session) return core::Fail(session.error());
  auto plan = workflow::PlanStack(*session->env, *stack);
  if (dry_run) {
    PrintPlan(context, *stack, plan);
    return core::kExitOk;
  }
  // A resource of another shape than the file says stops it all here, before any change.
  if (auto differs = workflow::DiffersError(*stack, plan, flags.recreate)) return core::Fail(*differs);
  auto results = workflow::RunStack(*session->env, *stack, plan);
  progress.Finish();
  PrintResults(context, *stack, results);
  auto outcome = workflow::StackOutcome(results);
  if (!outcome) {
    core::Error error = outcome.error();
    error.message += "; run `tputrain up -f " + flags.file + "` again to finish (what is done is adopted)";
    error.message += "\n  what exists is recorded in the run ledger: tputrain runs show --run " + stack->name;
    return core::Fail(error);
  }
  return core::kExitOk;
}

core::Result<int> RunStatus(const StackFlags& flags, Context& context) {
  auto stack = ReadStackFile(context, flags.file);
  if (!stack) return core::Fail(stack.error());
  auto session = OpenStackSession(context, *stack, flags, /*plan_only=*/true, nullptr);
  if (!session) return core::Fail(session.error());
  auto statuses = workflow::StackStatus(*session->env, *stack);
  nlohmann::json json = {{"stack", stack->name}, {"run", stack->name}, {"steps", workflow::ToJson(statuses)}};
  PrintResult(context, json, [&](std::ostream& out) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& status : statuses) rows.push_back({status.id, status.state, status.detail});
    PrintTable(out, {"step", "state", "detail"}, rows);
  });
  return core::kExitOk;
}

void AddFileFlags(CLI::App& command, StackFlags& flags) {
  command.add_option("-f,--file", flags.file, "The stack file (YAML)")->required()->type_name("FILE");
  command.add_option("--state-dir", flags.state_dir, "Run ledger directory (default: $XDG_STATE_HOME/tputrain)")
      ->type_name("DIR");
}

}  // namespace

void SetupUpCommand(CLI::App& root, Context& context) {
  auto flags = std::make_shared<StackFlags>();
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

  auto status_flags = std::make_shared<StackFlags>();
  auto* status = root.add_subcommand("status", "Each step of a stack file as the run ledger and the APIs see it");
  AddFileFlags(*status, *status_flags);
  status->footer("Example:\n  tputrain status -f examples/001-train-llama3-8b-gke.yaml");
  status->callback([status_flags, &context] { context.outcome = RunStatus(*status_flags, context); });
}

}  // namespace tputrain::cli
