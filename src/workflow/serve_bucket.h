#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/state/ledger.h"
#include "tputrain/workflow/kube_access.h"
#include "tputrain/workflow/root.h"

// The bucket the serving templates write to and read from (their BUCKET): seed 002's path
// creates one with `bucket create` and names it nowhere else, so serve convert and serve up look
// for it where a user would have left it.
namespace tputrain::workflow {

enum class BucketSource { kSet, kFlag, kConfiguration, kCheckpoint, kRunLedger };

struct BucketChoice {
  std::string bucket;  // the name, without gs://
  BucketSource source = BucketSource::kFlag;
  std::string from;  // where, in words: "--bucket", "env TPUTRAIN_BUCKET", "run R's ledger, its one bucket"
};

struct BucketSources {
  std::string flag;                       // --bucket: NAME or gs://NAME
  std::vector<std::string> sets;          // --set NAME=VALUE: a BUCKET= among them is the bucket
  std::optional<std::string> configured;  // the configuration's bucket (TPUTRAIN_BUCKET, tputrain.yaml)
  std::string configured_from;            // its source, as config::Setting says it
  std::string checkpoint;                 // --checkpoint gs://BUCKET/PATH
  const state::Ledger* ledger = nullptr;  // the command's run, if it has a ledger
};

// --set BUCKET= or --bucket (both given must agree), else the configuration, else the checkpoint's
// bucket, else the one bucket in the run's ledger not deleted (created or adopted by `bucket
// create`). Nothing when none of them says. A name that is not a bucket's is a usage error
// naming where it came from; a ledger with several buckets and nothing else to choose by is a
// usage error naming them.
core::Result<std::optional<BucketChoice>> ChooseBucket(const BucketSources& sources);

// The same, with `run_id`'s ledger read from `store` (none: no run, or a run with no ledger yet).
// Reads, writes nothing.
core::Result<std::optional<BucketChoice>> ChooseBucket(BucketSources sources, const state::LedgerStore& store,
                                                       const std::string& run_id);

// --bucket of serve up, down and convert, and what else may name the bucket.
struct ServeBucketRequest {
  std::string bucket;             // --bucket
  std::vector<std::string> sets;  // --set
  std::string checkpoint;         // --checkpoint ("" where there is none)
  LedgerFlags ledger;             // --run, --state-dir: the run whose ledger may name it
  bool run_bucket = true;         // false: the run's one bucket is not looked for
};
// The configuration's values under the templates' names (ConfigurationValues), with BUCKET the one
// ChooseBucket finds, and one line on stderr saying which it is and where it came from; no BUCKET
// when nothing names one (the render then says it is missing). Reads, sends nothing.
core::Result<std::map<std::string, std::string>> ServeConfiguration(Root& root, const ServeBucketRequest& request);

// "bucket B (from --checkpoint)": the one line that says which was used.
std::string Describe(const BucketChoice& choice);

}  // namespace tputrain::workflow
