#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/redact.h"
#include "tputrain/core/result.h"
#include "tputrain/workflow/cleanup_runs.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/stack.h"
#include "tputrain/workflow/stack_run.h"

// What `up`, `status` and `down` of a stack file share, on the composition root: reading the
// file, the environment its steps run in, and up's plan and outcome as they are shown.
namespace tputrain::workflow {

struct StackCommand {
  std::string file;       // -f
  std::string state_dir;  // --state-dir
  std::string timeout;    // --timeout: each wait's limit (core::ParseDuration's grammar)
  bool recreate = false;
  std::vector<std::string> skip;  // --skip: steps, or kinds of step
};

// The file, checked whole before any call (one usage line on the first problem); the secrets it
// holds (its TPU VMs' Ray tokens) are the root's redactor's before anything is printed.
core::Result<Stack> LoadStackFile(Root& root, const std::string& file);

// --skip names a step of `stack` or a kind of step (one --skip for every stack file of a CI
// matrix); any other name is a typo, a usage error.
core::Status CheckSkips(const Stack& stack, const std::vector<std::string>& skip);

// The steps' environment: the Google APIs (their reads also under --dry-run, which records
// nothing), the ledger named after the stack (resolved, so a ledger that cannot record refuses
// `up` before any call, unless `plan_only`), the reach of the cluster side, and `observer`.
core::Result<std::unique_ptr<StackEnv>> OpenStackEnv(Root& root, const Stack& stack, const StackCommand& command,
                                                     bool plan_only, StackObserver* observer);

// `up --dry-run --format json`: the stack, and each step's plan with its request bodies as
// `redactor` shows them.
nlohmann::json PlanJson(const Stack& stack, const std::vector<StepPlan>& plan, const core::Redactor& redactor);

// `up --format json` after the run, and `status -f --format json`: the stack, its run, each step.
nlohmann::json ToJson(const Stack& stack, const std::vector<StepResult>& results);
nlohmann::json ToJson(const Stack& stack, const std::vector<StepStatus>& statuses);

// StackOutcome, a failure saying how to finish (`up` again adopts what is done) and where the
// ledger records what exists.
core::Status UpOutcome(const Stack& stack, const std::vector<StepResult>& results);

// `down -f FILE | --run NAME` (one of them): the stack's run, planned as its cleanup.
struct StackDownRequest {
  StackCommand stack;  // file, state_dir, timeout
  std::string run;
  bool force = false;
  bool dry_run = false;
};
struct StackDownPlanned {
  std::string run;
  CleanupPlanned cleanup;
};
core::Result<StackDownPlanned> PlanStackDown(Root& root, const StackDownRequest& request);

// Carries out the cleanup; then what `up` remembered as done goes from the ledger (it went with
// what it ran on: a later `up` does it all again).
core::Result<std::vector<RunCleaned>> CarryOutStackDown(Root& root, const StackDownPlanned& planned);

}  // namespace tputrain::workflow
