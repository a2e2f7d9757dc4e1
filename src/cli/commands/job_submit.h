#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tputrain/core/result.h"
#include "tputrain/ray/jobs_client.h"

// The flags of `tputrain job submit` and how they become a ray::SubmitRequest.
namespace tputrain::cli {

struct JobSubmitFlags {
  std::vector<std::string> command;  // after --
  std::string submission_id;
  std::string runtime_env_json;
  std::string runtime_env_file;
  std::string working_dir;
  std::string metadata_json;
  // As typed, parsed strictly when the request is built (CLI11 would take "nan", "-3" or "1e400").
  std::optional<std::string> num_cpus;
  std::optional<std::string> num_gpus;
  std::optional<std::string> memory;
  std::string resources_json;
};

// `ray job submit`'s flags, by the same names.
void AddSubmitFlags(CLI::App* submit, JobSubmitFlags& flags);

// Everything but a local working_dir, which the caller zips and uploads; returned in
// `local_working_dir` (empty when there is none).
core::Result<ray::SubmitRequest> BuildSubmitRequest(const JobSubmitFlags& flags, std::string& local_working_dir);

}  // namespace tputrain::cli
