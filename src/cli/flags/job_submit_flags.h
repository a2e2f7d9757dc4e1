#pragma once

#include <CLI/CLI.hpp>

#include "tputrain/workflow/ray_jobs.h"

// The flags of `tputrain job submit` (what they mean: workflow::JobSubmitRequest).
namespace tputrain::cli {

// `ray job submit`'s flags, by the same names.
void AddSubmitFlags(CLI::App* submit, workflow::JobSubmitRequest& flags);

}  // namespace tputrain::cli
