#pragma once

#include <memory>
#include <string>
#include <vector>

#include "output/stack_progress.h"
#include "tputrain/cli/context.h"
#include "tputrain/workflow/stack.h"
#include "tputrain/workflow/stack_run.h"

// What `up`, `status` and `down` of a stack file share: reading the file, and the environment
// its steps run in, on the Stack.
namespace tputrain::cli {

struct StackFlags {
  std::string file;       // -f
  std::string state_dir;  // --state-dir
  std::string timeout;    // --timeout: each wait's limit
  bool recreate = false;
  std::vector<std::string> skip;
};

// The file, checked whole before any call (one usage line on the first problem).
core::Result<workflow::Stack> ReadStackFile(Context& context, const std::string& file);

// The steps' environment: the Google APIs (their reads also under --dry-run, which records
// nothing), the ledger named after the stack (resolved, so a ledger that cannot record refuses
// `up` before any call, unless `plan_only`), the reach of the cluster side, and `observer`.
struct StackSession {
  std::unique_ptr<workflow::StackEnv> env;
};
core::Result<StackSession> OpenStackSession(Context& context, const workflow::Stack& stack, const StackFlags& flags,
                                            bool plan_only, workflow::StackObserver* observer);

}  // namespace tputrain::cli
