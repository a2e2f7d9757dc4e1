#pragma once

#include "tputrain/cli/context.h"

namespace tputrain::cli {

// Parses argv, runs one command and returns the process exit code. The only place where
// exceptions from CLI11 and errors from the library become exit codes.
int Main(int argc, const char* const* argv, Context& context);

}  // namespace tputrain::cli
