#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tputrain::gcp::cloudbuild {

// Build.status of cloudbuild/v1.
enum class BuildStatus {
  kUnknown,  // STATUS_UNKNOWN, or a status this release does not know
  kPending,
  kQueued,
  kWorking,
  kSuccess,
  kFailure,
  kInternalError,
  kTimeout,
  kCancelled,
  kExpired,
};

std::string_view StatusName(BuildStatus status);  // "SUCCESS", as the API spells it
BuildStatus StatusFromName(std::string_view name);
// Whether the build has ended: anything but pending, queued, working (and unknown, which Google
// reports briefly for new builds).
bool IsFinished(BuildStatus status);

struct BuildRef {
  std::string project;
  std::string location = "global";
  std::string id;
  std::string Parent() const;  // projects/P/locations/L
  std::string Name() const;    // projects/P/locations/L/builds/ID
};

// What `gcloud builds submit --tag IMAGE` asks for: one docker build step that tags the image,
// and the image pushed, from a tarball in Cloud Storage.
struct DockerBuildSpec {
  std::string tag;
  std::string source_bucket;
  std::string source_object;
  std::string source_generation;
  std::string timeout;  // "3600s"; empty: the service's default (10 minutes)
};

struct BuiltImage {
  std::string name;
  std::string digest;  // sha256:...
};

struct Build {
  std::string id;
  std::string name;
  BuildStatus status = BuildStatus::kUnknown;
  std::string status_detail;
  std::string failure_detail;  // failureInfo.detail
  std::string logs_bucket;     // gs://BUCKET[/DIR]
  std::string log_url;
  std::string create_time;
  std::string start_time;
  std::string finish_time;
  std::vector<BuiltImage> images;  // results.images
  nlohmann::json raw;
};

// Where the build writes its log: BUCKET and DIR/log-ID.txt of logsBucket; nullopt without one.
struct LogObject {
  std::string bucket;
  std::string object;
};
std::optional<LogObject> LogObjectOf(const Build& build);

nlohmann::json DockerBuildToJson(const DockerBuildSpec& spec);
Build BuildFromJson(const nlohmann::json& json);

}  // namespace tputrain::gcp::cloudbuild
