#pragma once

#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands/provision_common.h"
#include "tputrain/cli/context.h"

// --bucket of serve up, down and convert: the bucket their templates name (BUCKET).
namespace tputrain::cli {

void AddServeBucketFlag(CLI::App& command, std::string& bucket);

struct ServeBucketFlags {
  const std::string& bucket;             // --bucket
  const std::vector<std::string>& sets;  // --set
  const std::string& checkpoint;         // --checkpoint ("" where there is none)
  const ProvisionFlags& ledger;          // --run, --state-dir: the run whose ledger may name it
  bool run_bucket = true;                // false: the run's one bucket is not looked for
};

// The configuration's values under the templates' names (workflow::ConfigurationValues), with
// BUCKET the one workflow::ChooseBucket finds, and one line on stderr saying which it is and where
// it came from; no BUCKET when nothing names one (the render then says it is missing). Reads,
// sends nothing.
core::Result<std::map<std::string, std::string>> ServeConfiguration(Context& context, const ServeBucketFlags& flags);

}  // namespace tputrain::cli
