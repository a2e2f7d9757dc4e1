#include <algorithm>
#include <cctype>

#include "tputrain/gcp/storage/types.h"

namespace tputrain::gcp::storage {
namespace {

std::string Upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::toupper(c); });
  return text;
}

}  // namespace

nlohmann::json BucketToJson(const BucketSpec& spec) {
  nlohmann::json body = {{"name", spec.name}};
  if (!spec.location.empty()) body["location"] = spec.location;
  if (!spec.storage_class.empty()) body["storageClass"] = spec.storage_class;
  if (spec.uniform_access) body["iamConfiguration"] = {{"uniformBucketLevelAccess", {{"enabled", true}}}};
  if (!spec.labels.empty()) body["labels"] = spec.labels;
  return body;
}

Bucket BucketFromJson(const nlohmann::json& body) {
  Bucket bucket;
  if (!body.is_object()) return bucket;
  bucket.name = body.value("name", "");
  bucket.location = body.value("location", "");
  bucket.storage_class = body.value("storageClass", "");
  bucket.uniform_access = body.value("iamConfiguration", nlohmann::json::object())
                              .value("uniformBucketLevelAccess", nlohmann::json::object())
                              .value("enabled", false);
  const nlohmann::json labels = body.value("labels", nlohmann::json::object());
  for (const auto& [key, value] : labels.items()) {
    if (value.is_string()) bucket.labels[key] = value.get<std::string>();
  }
  bucket.raw = body;
  return bucket;
}

std::vector<std::string> DiffBucket(const BucketSpec& want, const Bucket& have) {
  std::vector<std::string> diffs;
  if (!want.location.empty() && Upper(want.location) != Upper(have.location)) {
    diffs.push_back("location: want " + want.location + ", have " + have.location);
  }
  if (!want.storage_class.empty() && Upper(want.storage_class) != Upper(have.storage_class)) {
    diffs.push_back("storageClass: want " + want.storage_class + ", have " + have.storage_class);
  }
  if (want.uniform_access && !have.uniform_access) {
    diffs.push_back("iamConfiguration.uniformBucketLevelAccess.enabled: want true, have false");
  }
  return diffs;
}

}  // namespace tputrain::gcp::storage
