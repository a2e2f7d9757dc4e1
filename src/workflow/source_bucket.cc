#include "source_bucket.h"

#include <set>

#include "provision_steps.h"
#include "tputrain/core/text.h"
#include "tputrain/gcp/storage/client.h"
#include "tputrain/workflow/image_build.h"

namespace tputrain::workflow::internal {

bool IsSourceBucket(const std::string& bucket, const std::string& project) {
  return !project.empty() && bucket == SourceBucketOf(project);
}

namespace {

// The objects of `bucket` the run's ledger still lists as its own (live `build` entries).
std::set<std::string> OwnTarballs(ProvisionEnv& env, const std::string& bucket) {
  std::set<std::string> own;
  if (env.ledger == nullptr) return own;
  auto ledger = env.ledger->Load(env.run_id);
  if (!ledger) return own;
  for (const auto* entry : ledger->Live()) {
    if (entry->kind != ResourceKind::kBuild || !entry->details.is_object()) continue;
    if (entry->details.value("bucket", "") == bucket) own.insert(entry->details.value("object", ""));
  }
  return own;
}

}  // namespace

core::Result<Outcome> DeleteSourceBucket(ProvisionEnv& env, const std::string& bucket) {
  gcp::storage::Client client(env.transport, env.endpoints.storage);
  DeleteSteps steps{ResourceKind::kBucket, bucket, bucket, client.BuildDeleteBucket(bucket), nullptr, nullptr};
  steps.send = [&]() -> core::Result<std::string> {
    auto deleted = client.DeleteBucket(bucket);
    if (!deleted) return core::Fail(deleted.error());
    return std::string();
  };
  steps.wait = [](const std::string&) { return core::Status(); };
  if (env.dry_run != nullptr) return RunDelete(env, steps);  // nothing is read under --dry-run

  auto objects = client.ListObjects(bucket);
  if (!objects && objects.error().kind != core::ErrorKind::kNotFound) return core::Fail(objects.error());
  if (!objects || objects->empty()) return RunDelete(env, steps);  // a 404 is "already gone"

  // The run's own tarballs still there are those whose delete failed in the builds' tier: the
  // cleanup fails there already, and the next one deletes them, then looks at the bucket again.
  const std::set<std::string> own = OwnTarballs(env, bucket);
  size_t foreign = 0;
  for (const auto& object : *objects) foreign += own.contains(object.name) ? 0 : 1;
  if (foreign == 0) {
    return core::Fail(
        core::Error::Make(core::ErrorKind::kFailedPrecondition, "bucket " + bucket +
                                                                    " still holds source tarballs of this run; run "
                                                                    "cleanup again once they are deleted"));
  }
  Outcome kept{ResourceKind::kBucket, bucket, bucket, OutcomeAction::kKeptShared, "", {{"objects", foreign}}};
  env.reporter.Done("bucket " + bucket, "kept: it holds " + core::Counted(static_cast<long long>(foreign), "object") +
                                            " this run did not upload (the project's Cloud Build "
                                            "bucket, shared with gcloud builds submit and other runs)");
  if (env.ledger != nullptr && foreign == objects->size()) {
    auto released = env.ledger->Update(env.run_id, [&](state::Ledger& ledger) {
      if (auto* entry = ledger.Find(ResourceKind::kBucket, bucket)) {
        entry->owned = false;
        entry->details["shared"] = true;
      }
    });
    if (!released) env.reporter.Warn("run ledger: " + released.error().message);
  }
  return kept;
}

}  // namespace tputrain::workflow::internal
