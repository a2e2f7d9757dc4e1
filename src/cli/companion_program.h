#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tputrain/core/env.h"
#include "tputrain/core/error.h"

// The programs installed beside tputrain (tputrain-emulator): found as git finds git-foo, and run
// in tputrain's place.
namespace tputrain::cli {

// `name` in the directory of `executable` (this program's path) first, then on `env`'s PATH;
// nothing when neither has it.
std::optional<std::string> FindCompanionProgram(const std::string& name, const std::string& executable,
                                                const core::Env& env);

// Replaces this process with `path`, argv[0] its file name and then `args`: same PID, same standard
// streams (flushed first), same environment. Returns only when exec fails, with why.
core::Error ExecCompanionProgram(const std::string& path, const std::vector<std::string>& args);

}  // namespace tputrain::cli
