#pragma once

#include "tputrain/cli/context.h"
#include "tputrain/workflow/root.h"

namespace tputrain::cli {

// The process's standard streams (and whether each is a terminal), libcurl and the system clock,
// and the Ctrl-C token its interrupt handler sets.
class ProcessFactory final : public Factory {
 public:
  explicit ProcessFactory(core::CancelToken* cancel) : cancel_(cancel), leaves_(cancel) {}
  IOStreams streams() override;
  workflow::Leaves& leaves() override { return leaves_; }
  core::CancelToken* cancel() override { return cancel_; }
  std::string executable() override;  // /proc/self/exe
  // execv: the environment is the process's own (`env` is its snapshot).
  core::Result<int> Exec(const std::string& path, const std::vector<std::string>& args, const core::Env& env) override;

 private:
  core::CancelToken* cancel_;
  workflow::ProcessLeaves leaves_;
};

}  // namespace tputrain::cli
