#include "serve_bucket.h"

#include "template_values.h"
#include "tputrain/gcp/names.h"

namespace tputrain::workflow {
namespace {

std::string WithoutScheme(const std::string& bucket) {
  return bucket.rfind("gs://", 0) == 0 ? bucket.substr(5) : bucket;
}

core::Result<std::optional<BucketChoice>> Checked(std::string bucket, BucketSource source, std::string from) {
  if (auto valid = gcp::CheckBucketName(from, bucket); !valid) return core::Fail(valid.error());
  return std::optional<BucketChoice>(BucketChoice{std::move(bucket), source, std::move(from)});
}

}  // namespace

core::Result<std::optional<BucketChoice>> ChooseBucket(const BucketSources& sources) {
  std::optional<std::string> set;
  for (const auto& value : sources.sets) {
    if (value.rfind("BUCKET=", 0) == 0) set = WithoutScheme(value.substr(7));
  }
  const std::string flag = WithoutScheme(sources.flag);
  if (set && !flag.empty() && *set != flag) {
    return core::Fail(core::Error::Usage("--bucket: " + flag + " and --set BUCKET=" + *set + " differ; give one"));
  }
  if (set) return Checked(*set, BucketSource::kSet, "--set BUCKET");
  if (!flag.empty()) return Checked(flag, BucketSource::kFlag, "--bucket");
  if (sources.configured && !sources.configured->empty()) {
    return Checked(WithoutScheme(*sources.configured), BucketSource::kConfiguration, sources.configured_from);
  }
  if (sources.checkpoint.rfind("gs://", 0) == 0) {
    const std::string path = sources.checkpoint.substr(5);
    return Checked(path.substr(0, path.find('/')), BucketSource::kCheckpoint, "--checkpoint");
  }
  if (sources.ledger == nullptr) return std::optional<BucketChoice>();
  std::vector<std::string> buckets;
  for (const auto* entry : sources.ledger->Live()) {
    if (entry->kind == state::ResourceKind::kBucket) buckets.push_back(entry->name);
  }
  if (buckets.empty()) return std::optional<BucketChoice>();
  if (buckets.size() > 1) {
    std::string names;
    for (const auto& bucket : buckets) names += (names.empty() ? "" : ", ") + bucket;
    return core::Fail(core::Error::Usage("--bucket: run " + sources.ledger->run_id + " has " +
                                         std::to_string(buckets.size()) + " buckets (" + names +
                                         "); say which with --bucket"));
  }
  return Checked(buckets.front(), BucketSource::kRunLedger,
                 "run " + sources.ledger->run_id + "'s ledger, its one bucket");
}

core::Result<std::optional<BucketChoice>> ChooseBucket(BucketSources sources, const state::LedgerStore& store,
                                                       const std::string& run_id) {
  std::optional<state::Ledger> ledger;
  if (!run_id.empty()) {
    auto loaded = store.Load(run_id);
    if (loaded) {
      ledger = std::move(*loaded);
    } else if (loaded.error().kind != core::ErrorKind::kNotFound) {
      return core::Fail(loaded.error());
    }
  }
  sources.ledger = ledger ? &*ledger : nullptr;
  return ChooseBucket(sources);
}

std::string Describe(const BucketChoice& choice) { return "bucket " + choice.bucket + " (from " + choice.from + ")"; }

core::Result<std::map<std::string, std::string>> ServeConfiguration(Root& root, const ServeBucketRequest& request) {
  auto settings = root.Settings();
  if (!settings) return core::Fail(settings.error());
  auto configuration = ConfigurationValues(*settings);
  const config::Setting& configured = settings->Lookup("bucket");
  state::LedgerStore& store = root.Ledger(request.ledger.state_dir);
  auto run_id = request.run_bucket ? store.ResolveRun(request.ledger.run_id, root.env(), /*create=*/false)
                                   : core::Result<std::string>(std::string());
  if (!run_id) return core::Fail(run_id.error());
  auto choice = ChooseBucket({request.bucket, request.sets, configured.value, configured.source, request.checkpoint},
                             store, *run_id);
  if (!choice) return core::Fail(choice.error());
  if (!*choice) return configuration;
  configuration["BUCKET"] = (*choice)->bucket;
  root.runtime().reporter.Info("Using " + Describe(**choice));
  return configuration;
}

}  // namespace tputrain::workflow
