#pragma once

#include "tputrain/cli/context.h"

namespace tputrain::cli {

// Parses argv, runs one command and returns the process exit code. The only place where
// exceptions from CLI11 and errors from the library become exit codes.
int Main(int argc, const char* const* argv, Context& context);

// Whether the command argv names may send a request, judged before the command tree is built so
// that the process can start loading libcurl beside it (http::CurlPreload): every command but
// those that never do (render, config, completion, emulator, --help, --version). A wrong guess
// costs a thread's CPU, never a result.
bool MaySendRequests(int argc, const char* const* argv);

}  // namespace tputrain::cli
