#include "tputrain/workflow/manifests.h"

#include "tputrain/core/duration.h"
#include "tputrain/core/file.h"
#include "tputrain/k8s/manifest.h"
#include "tputrain/workflow/queue.h"

namespace tputrain::workflow {
namespace {

// Manifests of operators run to a few MiB; a wrong path (a disk image) must not fill memory.
constexpr size_t kMaxManifestBytes = 32 * core::kMiB;

core::Result<std::vector<k8s::Object>> ReadManifests(const std::string& file, std::istream& in) {
  auto text = file == "-" ? core::ReadStream(in, "<stdin>", "-f", kMaxManifestBytes)
                          : core::ReadFile(file, "-f", kMaxManifestBytes);
  if (!text) return core::Fail(text.error());
  return k8s::ParseManifests(*text, file == "-" ? "<stdin>" : file);
}

nlohmann::json ObjectJson(const k8s::Object& object) {
  return {{"apiVersion", object.api_version}, {"kind", object.kind}, {"namespace", object.ns}, {"name", object.name}};
}

}  // namespace

core::Result<std::vector<k8s::ApplyResult>> ApplyManifests(
    Root& root, const ManifestApplyRequest& request, std::istream& in,
    const std::function<void(const k8s::ApplyResult&)>& on_applied) {
  auto objects = ReadManifests(request.file, in);
  if (!objects) return core::Fail(objects.error());
  // The run first: a ledger that cannot record refuses the apply before any call.
  auto cluster = OpenRecordedApply(root, request.access, request.ledger, request.dry_run);
  if (!cluster) return core::Fail(cluster.error());
  if (auto queued = PrepareForQueue(*(*cluster)->connection->client, request.queue, request.access.ns, *objects);
      !queued) {
    return core::Fail(queued.error());
  }
  k8s::ApplyOptions options;
  options.dry_run = request.dry_run;
  options.force_conflicts = request.force_conflicts;
  options.ns = request.access.ns;
  // Every object goes into the run ledger before it is sent, so `tputrain cleanup` deletes it.
  return ApplyRecorded((*cluster)->env, *objects, options, on_applied);
}

core::Result<std::vector<k8s::DeleteResult>> DeleteManifests(
    Root& root, const ManifestDeleteRequest& request, std::istream& in,
    const std::function<void(const k8s::DeleteResult&)>& on_deleted) {
  auto timeout = core::ParseDuration("--timeout", request.timeout);
  if (!timeout) return core::Fail(timeout.error());
  auto objects = ReadManifests(request.file, in);
  if (!objects) return core::Fail(objects.error());
  auto connection = ConnectCluster(root, request.access);
  if (!connection) return core::Fail(connection.error());
  k8s::DeleteOptions options;
  options.ns = request.access.ns;
  options.dry_run = request.dry_run;
  options.wait = request.wait;
  options.timeout = *timeout;
  RecordedDeleteEnv env = RecordedDeleteEnvOf(root, request.access, **connection, request.ledger);
  return DeleteRecorded(env, std::move(*objects), options, on_deleted);
}

nlohmann::json ToJson(const std::vector<k8s::ApplyResult>& applied, bool dry_run) {
  nlohmann::json json = nlohmann::json::array();
  for (const auto& result : applied) {
    auto item = ObjectJson(result.object);
    item["action"] = std::string(k8s::ApplyActionName(result.action, false));
    item["dryRun"] = dry_run;
    item["resourceVersion"] = result.resource_version;
    json.push_back(item);
  }
  return json;
}

nlohmann::json ToJson(const std::vector<k8s::DeleteResult>& deleted) {
  nlohmann::json json = nlohmann::json::array();
  for (const auto& result : deleted) {
    auto item = ObjectJson(result.object);
    item["deleted"] = result.existed;
    json.push_back(item);
  }
  return json;
}

}  // namespace tputrain::workflow
