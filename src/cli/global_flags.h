#pragma once

#include <CLI/CLI.hpp>

#include "tputrain/cli/context.h"

namespace tputrain::cli {

// The flags every command takes, before or after its name (--project, --format, --quiet, ...).
void AddGlobalFlags(CLI::App& app, GlobalOptions& global);

}  // namespace tputrain::cli
