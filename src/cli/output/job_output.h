#pragma once

#include <string>

#include "tputrain/cli/context.h"
#include "tputrain/core/result.h"
#include "tputrain/workflow/ray_jobs.h"

// How `tputrain job` shows jobs: the details table, the last word after a follow, where log text
// goes, and what `job submit --dry-run` would send.
namespace tputrain::cli {

// Milliseconds since the epoch as RFC 3339 UTC ("" when unknown).
std::string FormatTime(const std::optional<int64_t>& ms);

// The job's first message line, without the log tail Ray appends to a failed job's message.
std::string FirstLine(const std::optional<std::string>& text);

// Newlines as spaces, for a table cell.
std::string OneLine(std::string text);

void PrintJob(Context& context, const ray::JobDetails& job);

// The last word after following: the status on stderr, the details on stdout for --format
// json/yaml, and the exit code that mirrors the job.
int Finish(Context& context, const ray::JobDetails& job);

// Log text goes to stdout, unless stdout is reserved for the JSON/YAML result.
std::ostream& LogStream(Context& context);

}  // namespace tputrain::cli
