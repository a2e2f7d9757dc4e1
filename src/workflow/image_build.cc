// tputrain image build: a build context packed and uploaded, a Cloud Build docker build created
// and followed to its end, as `gcloud builds submit --tag` does; the build and its tarball are
// ledgered so cleanup can cancel and delete them.
#include "tputrain/workflow/image_build.h"

#include <algorithm>
#include <cstdio>
#include <random>

#include "provision_steps.h"
#include "tputrain/archive/build_context.h"
#include "tputrain/core/number.h"
#include "tputrain/gcp/artifactregistry/client.h"
#include "tputrain/gcp/cloudbuild/client.h"
#include "tputrain/gcp/storage/client.h"

namespace tputrain::workflow {
namespace {

constexpr char kTarballType[] = "application/gzip";

// Logs are read often enough to feel live (gcloud reads every second), builds are long: the
// status is read on the same beat, never more often than every few seconds once it runs long.
gcp::operations::PollOptions FollowOptions(const gcp::operations::PollOptions& base) {
  gcp::operations::PollOptions options = base;
  options.initial_delay = std::chrono::milliseconds(500);
  options.multiplier = 1.3;
  options.max_delay = std::min(base.max_delay, std::chrono::milliseconds(3000));
  options.timeout_note = "the build goes on; tputrain cleanup cancels it";
  return options;
}

// gcloud's staged object: source/<seconds.micros>-<32 hex>.tgz.
std::string SourceObjectName(core::Clock& clock) {
  const auto since_epoch = clock.WallNow().time_since_epoch();
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(since_epoch).count();
  std::random_device random;
  char name[96];
  std::snprintf(name, sizeof name, "source/%lld.%06lld-%08x%08x%08x%08x.tgz", static_cast<long long>(micros / 1000000),
                static_cast<long long>(micros % 1000000), random(), random(), random(), random());
  return name;
}

// A push to a repository that does not exist fails at the end of the build: found out first.
core::Status CheckRepositoryExists(ProvisionEnv& env, const gcp::artifactregistry::DockerImageRef& image) {
  gcp::artifactregistry::Client registry(env.transport, env.endpoints.artifactregistry);
  auto repository = registry.Get({image.project, image.location, image.repository});
  if (repository) return {};
  core::Error error = repository.error();
  if (error.kind == core::ErrorKind::kNotFound) {
    error.kind = core::ErrorKind::kFailedPrecondition;
    error.message = "repository " + image.repository + " does not exist in " + image.location + " (project " +
                    image.project + "); create it first: tputrain registry create " + image.repository +
                    " --location " + image.location;
  }
  return core::Fail(error);
}

// The default source bucket is found by name, so a bucket of that name in another project
// could be anyone's: gcloud refuses to upload to it, and so does tputrain.
core::Status CheckBucketIsTheProjects(ProvisionEnv& env, const std::string& project, const std::string& bucket) {
  gcp::storage::Client storage(env.transport, env.endpoints.storage);
  auto buckets = storage.ListBuckets(project);
  if (!buckets) return core::Fail(buckets.error());
  for (const auto& listed : *buckets) {
    if (listed.name == bucket) return {};
  }
  return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                      "bucket " + bucket + " exists but is not project " + project +
                                          "'s: it may belong to anyone, so no source is uploaded to it"));
}

void RecordDetails(ProvisionEnv& env, const std::string& key, const nlohmann::json& details) {
  if (env.ledger == nullptr) return;
  (void)env.ledger->Update(env.run_id, [&](state::Ledger& ledger) {
    if (auto* entry = ledger.Find(ResourceKind::kBuild, key)) {
      for (const auto& [field, value] : details.items()) entry->details[field] = value;
    }
  });
}

// Follows the build until it ends, handing each new piece of its log to `on_log`. How it ended
// is recorded under `key` before a failure (BuildFailure) is returned.
core::Result<gcp::cloudbuild::Build> Follow(ProvisionEnv& env, const std::string& key,
                                            const gcp::cloudbuild::Build& created, const gcp::cloudbuild::BuildRef& ref,
                                            const std::function<void(std::string_view)>& on_log) {
  gcp::cloudbuild::Client builds(env.transport, env.endpoints.cloudbuild);
  gcp::storage::Client storage(env.transport, env.endpoints.storage);
  gcp::cloudbuild::Build last = created;
  std::uint64_t cursor = 0;
  bool log_warned = false;
  auto read_log = [&]() -> core::Status {
    auto log = gcp::cloudbuild::LogObjectOf(last);
    if (!log || !on_log) return {};
    auto text = storage.ReadObjectFrom(log->bucket, log->object, cursor);
    if (!text) return core::Fail(text.error());
    if (*text && !(*text)->empty()) {
      cursor += (*text)->size();
      on_log(**text);
    }
    return {};
  };
  const std::string task = "build " + ref.id;
  auto done = gcp::operations::Wait(gcp::cloudbuild::BuildWaiting(builds, ref), FollowOptions(env.poll), env,
                                    [&](const gcp::cloudbuild::Build& build) {
                                      last = build;
                                      // A log that cannot be read (a 403 on a bucket outside a
                                      // perimeter) is said once, and the build still followed: its
                                      // status is what the exit code reports.
                                      if (auto logged = read_log(); !logged && !log_warned) {
                                        env.reporter.Warn("cannot read the build log: " + logged.error().message);
                                        log_warned = true;
                                      }
                                      env.reporter.Progress(task, gcp::cloudbuild::StatusName(last.status));
                                    });
  if (!done && !gcp::cloudbuild::IsFinished(last.status)) {
    if (done.error().kind == core::ErrorKind::kCancelled) {
      // Ctrl-C stops the build too: a build nobody waits for still bills its minutes.
      env.reporter.Progress(task, "cancelling");
      auto cancelled = builds.Cancel(ref);
      core::Error error = done.error();
      error.message += cancelled ? "; build " + ref.id + " cancelled"
                                 : "; cancelling build " + ref.id + " failed: " + cancelled.error().message;
      return core::Fail(error);
    }
    return core::Fail(done.error());
  }
  // Cloud Build finishes writing the log before it reports the end: one last read has it all.
  (void)read_log();
  env.reporter.Done(task, gcp::cloudbuild::StatusName(last.status));
  RecordDetails(env, key, {{"status", gcp::cloudbuild::StatusName(last.status)}});
  return done;
}

}  // namespace

std::string SourceBucketOf(const std::string& project) {
  std::string safe = project;
  std::replace(safe.begin(), safe.end(), ':', '_');
  std::replace(safe.begin(), safe.end(), '.', '_');
  for (auto at = safe.find("google"); at != std::string::npos; at = safe.find("google", at + 6)) {
    safe.replace(at, 6, "elgoog");
  }
  return safe + "_cloudbuild";
}

core::Result<PackedContext> PackContext(const ImageBuildRequest& request) {
  auto context =
      archive::CollectBuildContext(request.context_dir, {request.max_context_bytes, request.max_context_flag});
  if (!context) return core::Fail(context.error());
  auto tarball = archive::WriteTarGz(context->files);
  if (!tarball) return core::Fail(tarball.error());
  return PackedContext{std::move(*tarball), context->file_count, context->bytes, context->rules_source};
}

core::Result<ImageBuildResult> BuildImage(ProvisionEnv& env, const ImageBuildRequest& request,
                                          const PackedContext& context,
                                          const std::function<void(std::string_view)>& on_log) {
  ImageBuildResult result;
  result.image = request.image.Uri();
  result.files = context.files;
  result.context_bytes = context.bytes;
  result.archive_bytes = context.tarball.size();
  env.reporter.Info("context " + request.context_dir.string() + ": " + std::to_string(context.files) + " files, " +
                    core::HumanBytes(context.bytes) + " (" + core::HumanBytes(context.tarball.size()) +
                    " packed); ignore rules: " + context.rules_source);

  if (env.dry_run == nullptr) {
    if (auto exists = CheckRepositoryExists(env, request.image); !exists) return core::Fail(exists.error());
  }
  const std::string bucket = SourceBucketOf(request.project);
  auto bucket_outcome = CreateBucket(env, request.project, {bucket, "", "", false, {}});
  if (!bucket_outcome) return core::Fail(bucket_outcome.error());
  if (bucket_outcome->action == OutcomeAction::kAdopted || bucket_outcome->action == OutcomeAction::kResumed) {
    if (auto owned = CheckBucketIsTheProjects(env, request.project, bucket); !owned) return core::Fail(owned.error());
  }
  result.outcomes.push_back(*bucket_outcome);

  gcp::storage::Client storage(env.transport, env.endpoints.storage);
  gcp::cloudbuild::Client builds(env.transport, env.endpoints.cloudbuild);
  const std::string object = SourceObjectName(env.clock);
  result.source = "gs://" + bucket + "/" + object;
  gcp::cloudbuild::DockerBuildSpec spec{result.image, bucket, object, "", request.timeout};
  const std::string location = "global";

  if (env.dry_run != nullptr) {
    // The tarball is not printed: its size and file count say what would be sent.
    auto upload = storage.BuildUploadObject(bucket, object, "", kTarballType);
    upload.body = "<" + std::string(kTarballType) + ": " + std::to_string(context.files) + " files, " +
                  std::to_string(context.tarball.size()) + " bytes>";
    env.dry_run->push_back(std::move(upload));
    env.dry_run->push_back(builds.BuildCreate(request.project, location, spec));
    Outcome would{ResourceKind::kBuild, result.image, result.source, OutcomeAction::kWouldSend};
    result.outcomes.push_back(would);
    return result;
  }

  // The entry comes before the upload: a process killed after it still leaves the tarball
  // findable by cleanup.
  const std::string key = result.source;
  if (env.ledger != nullptr) {
    state::LedgerEntry entry;
    entry.kind = ResourceKind::kBuild;
    entry.name = key;
    entry.details = {{"project", request.project},
                     {"location", location},
                     {"bucket", bucket},
                     {"object", object},
                     {"image", result.image}};
    if (auto recorded = env.ledger->RecordCreating(env.run_id, entry); !recorded) {
      return core::Fail(recorded.error());
    }
  }
  env.reporter.Progress("upload", "uploading " + core::HumanBytes(context.tarball.size()) + " to " + result.source);
  auto uploaded = storage.UploadObject(bucket, object, context.tarball, kTarballType);
  if (!uploaded) return core::Fail(uploaded.error());
  env.reporter.Done("upload", "uploaded " + result.source);
  spec.source_generation = uploaded->generation;

  auto created = builds.Create(request.project, location, spec);
  if (!created) return core::Fail(created.error());
  result.build_id = created->id;
  result.build_name = created->name;
  result.log_url = created->log_url;
  RecordDetails(env, key, {{"build", created->id}, {"log_url", created->log_url}});
  if (env.ledger != nullptr) {
    (void)env.ledger->RecordState(env.run_id, ResourceKind::kBuild, key, state::EntryState::kCreated);
  }
  if (!created->log_url.empty()) env.reporter.Info("build " + created->id + " log: " + created->log_url);

  Outcome build_outcome{ResourceKind::kBuild, result.image, key, OutcomeAction::kStarted};
  build_outcome.details = {{"build", created->id}};
  if (env.async) {
    result.status = created->status;
    result.outcomes.push_back(build_outcome);
    return result;
  }
  gcp::cloudbuild::BuildRef ref{request.project, location, created->id};
  auto finished = Follow(env, key, *created, ref, on_log);
  if (!finished) return core::Fail(finished.error());
  result.status = finished->status;
  for (const auto& image : finished->images) {
    if (image.name == result.image || image.name == request.image.UriWithoutTag()) result.digest = image.digest;
  }
  if (result.digest.empty() && !finished->images.empty()) result.digest = finished->images.front().digest;
  RecordDetails(env, key, {{"digest", result.digest}});
  build_outcome.action = OutcomeAction::kCreated;
  build_outcome.details["digest"] = result.digest;
  result.outcomes.push_back(build_outcome);
  return result;
}

core::Result<Outcome> DeleteBuild(ProvisionEnv& env, const state::LedgerEntry& entry) {
  const auto detail = [&](const char* key) { return entry.details.value(key, std::string()); };
  const std::string bucket = detail("bucket");
  const std::string object = detail("object");
  if (bucket.empty() || object.empty()) {
    return core::Fail(core::Error::Internal("run ledger: build " + entry.name +
                                            " lacks bucket/object in its details; delete it by hand"));
  }
  gcp::cloudbuild::Client builds(env.transport, env.endpoints.cloudbuild);
  gcp::storage::Client storage(env.transport, env.endpoints.storage);
  gcp::cloudbuild::BuildRef ref{detail("project"), detail("location").empty() ? "global" : detail("location"),
                                detail("build")};
  Outcome outcome{ResourceKind::kBuild, detail("image"), entry.name, OutcomeAction::kDeleted};
  if (env.dry_run != nullptr) {
    // Nothing is read under --dry-run: a build the ledger never saw finish may still run.
    if (!ref.id.empty() && detail("status").empty()) env.dry_run->push_back(builds.BuildCancel(ref));
    env.dry_run->push_back(storage.BuildDeleteObject(bucket, {object, ""}));
    outcome.action = OutcomeAction::kWouldSend;
    return outcome;
  }
  if (env.ledger != nullptr) {
    (void)env.ledger->RecordState(env.run_id, ResourceKind::kBuild, entry.name, state::EntryState::kDeleting);
  }
  if (!ref.id.empty() && !ref.project.empty()) {
    auto build = builds.Get(ref);
    if (build && !gcp::cloudbuild::IsFinished(build->status)) {
      auto cancelled = builds.Cancel(ref);
      if (!cancelled && cancelled.error().kind != core::ErrorKind::kNotFound) return core::Fail(cancelled.error());
    } else if (!build && build.error().kind != core::ErrorKind::kNotFound) {
      return core::Fail(build.error());
    }
  }
  auto deleted = storage.DeleteObject(bucket, {object, ""});
  if (!deleted) {
    if (deleted.error().kind != core::ErrorKind::kNotFound) return core::Fail(deleted.error());
    outcome.action = OutcomeAction::kAlreadyGone;
  }
  if (env.ledger != nullptr) {
    (void)env.ledger->RecordState(env.run_id, ResourceKind::kBuild, entry.name, state::EntryState::kDeleted);
  }
  return outcome;
}

std::string LastBuiltImage(const state::Ledger& ledger) {
  for (auto it = ledger.entries.rbegin(); it != ledger.entries.rend(); ++it) {
    if (it->kind != ResourceKind::kBuild || !it->details.is_object()) continue;
    const std::string digest = it->details.value("digest", "");
    const std::string image = it->details.value("image", "");
    if (digest.empty() || image.empty()) continue;
    // IMAGE@sha256:...: the exact bytes built, whatever the tag points at later.
    return ImageByDigest(image, digest);
  }
  return "";
}

std::string ImageByDigest(const std::string& image, const std::string& digest) {
  const auto last_slash = image.rfind('/');
  const auto colon = image.find(':', last_slash == std::string::npos ? 0 : last_slash);
  return image.substr(0, colon) + "@" + digest;
}

nlohmann::json ToJson(const std::string& run_id, const ImageBuildResult& result) {
  nlohmann::json json = {{"run", run_id},
                         {"build_id", result.build_id},
                         {"build", result.build_name},
                         {"status", gcp::cloudbuild::StatusName(result.status)},
                         {"image", result.image},
                         {"digest", result.digest},
                         {"log_url", result.log_url},
                         {"source", result.source},
                         {"files", result.files},
                         {"context_bytes", result.context_bytes},
                         {"archive_bytes", result.archive_bytes}};
  if (!result.digest.empty()) json["image_by_digest"] = ImageByDigest(result.image, result.digest);
  return json;
}

}  // namespace tputrain::workflow
