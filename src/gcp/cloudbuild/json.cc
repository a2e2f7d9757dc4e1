#include <array>
#include <utility>

#include "tputrain/core/json_fields.h"
#include "tputrain/gcp/cloudbuild/types.h"

namespace tputrain::gcp::cloudbuild {
namespace {

constexpr std::array<std::pair<BuildStatus, std::string_view>, 10> kStatusNames = {{
    {BuildStatus::kUnknown, "STATUS_UNKNOWN"},
    {BuildStatus::kPending, "PENDING"},
    {BuildStatus::kQueued, "QUEUED"},
    {BuildStatus::kWorking, "WORKING"},
    {BuildStatus::kSuccess, "SUCCESS"},
    {BuildStatus::kFailure, "FAILURE"},
    {BuildStatus::kInternalError, "INTERNAL_ERROR"},
    {BuildStatus::kTimeout, "TIMEOUT"},
    {BuildStatus::kCancelled, "CANCELLED"},
    {BuildStatus::kExpired, "EXPIRED"},
}};

}  // namespace

std::string_view StatusName(BuildStatus status) {
  for (const auto& [known, name] : kStatusNames) {
    if (known == status) return name;
  }
  return "STATUS_UNKNOWN";
}

BuildStatus StatusFromName(std::string_view name) {
  for (const auto& [status, known] : kStatusNames) {
    if (known == name) return status;
  }
  return BuildStatus::kUnknown;
}

bool IsFinished(BuildStatus status) {
  return status != BuildStatus::kUnknown && status != BuildStatus::kPending && status != BuildStatus::kQueued &&
         status != BuildStatus::kWorking;
}

std::string BuildRef::Parent() const { return "projects/" + project + "/locations/" + location; }
std::string BuildRef::Name() const { return Parent() + "/builds/" + id; }

std::optional<LogObject> LogObjectOf(const Build& build) {
  std::string bucket = build.logs_bucket;
  if (bucket.rfind("gs://", 0) == 0) bucket.erase(0, 5);
  if (bucket.empty() || build.id.empty()) return std::nullopt;
  std::string dir;
  if (auto slash = bucket.find('/'); slash != std::string::npos) {
    dir = bucket.substr(slash + 1);
    bucket.resize(slash);
    if (!dir.empty() && dir.back() != '/') dir += '/';
  }
  return LogObject{bucket, dir + "log-" + build.id + ".txt"};
}

nlohmann::json DockerBuildToJson(const DockerBuildSpec& spec) {
  // gcloud builds submit --tag's build, field for field (googlecloudsdk's submit_util).
  nlohmann::json source_object = {{"bucket", spec.source_bucket}, {"object", spec.source_object}};
  if (!spec.source_generation.empty()) source_object["generation"] = spec.source_generation;
  nlohmann::json body = {
      {"images", {spec.tag}},
      {"source", {{"storageSource", source_object}}},
      {"steps",
       {{{"name", "gcr.io/cloud-builders/docker"},
         {"args", {"build", "--network", "cloudbuild", "--no-cache", "-t", spec.tag, "."}}}}},
  };
  if (!spec.timeout.empty()) body["timeout"] = spec.timeout;
  return body;
}

Build BuildFromJson(const nlohmann::json& json) {
  Build build;
  if (!json.is_object()) return build;
  build.raw = json;
  build.id = core::StringAt(json, "id");
  build.name = core::StringAt(json, "name");
  build.status = StatusFromName(core::StringAt(json, "status"));
  build.status_detail = core::StringAt(json, "statusDetail");
  if (auto failure = json.find("failureInfo"); failure != json.end() && failure->is_object()) {
    build.failure_detail = core::StringAt(*failure, "detail");
  }
  build.logs_bucket = core::StringAt(json, "logsBucket");
  build.log_url = core::StringAt(json, "logUrl");
  build.create_time = core::StringAt(json, "createTime");
  build.start_time = core::StringAt(json, "startTime");
  build.finish_time = core::StringAt(json, "finishTime");
  if (auto results = json.find("results"); results != json.end() && results->is_object()) {
    if (auto images = results->find("images"); images != results->end() && images->is_array()) {
      for (const auto& image : *images) {
        if (image.is_object()) build.images.push_back({core::StringAt(image, "name"), core::StringAt(image, "digest")});
      }
    }
  }
  return build;
}

}  // namespace tputrain::gcp::cloudbuild
