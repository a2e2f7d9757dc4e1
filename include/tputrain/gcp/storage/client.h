#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/gcp/iam/types.h"
#include "tputrain/gcp/storage/types.h"
#include "tputrain/http/transport.h"

namespace tputrain::gcp::storage {

// Cloud Storage JSON API v1. The base URL includes "storage/v1/", as gcloud's override does.
class Client {
 public:
  Client(http::Transport& transport, std::string base_url);

  http::Request BuildInsertBucket(const std::string& project, const BucketSpec& spec) const;
  http::Request BuildDeleteBucket(const std::string& bucket) const;
  http::Request BuildSetIamPolicy(const std::string& bucket, const iam::Policy& policy) const;

  core::Result<Bucket> InsertBucket(const std::string& project, const BucketSpec& spec);
  core::Result<Bucket> GetBucket(const std::string& bucket);
  core::Status DeleteBucket(const std::string& bucket);
  // Every bucket of `project`, all pages.
  core::Result<std::vector<Bucket>> ListBuckets(const std::string& project);
  // Every version of every object.
  core::Result<std::vector<Object>> ListObjects(const std::string& bucket);
  http::Request BuildDeleteObject(const std::string& bucket, const Object& object) const;
  core::Status DeleteObject(const std::string& bucket, const Object& object);
  // A simple media upload (uploadType=media) of `bytes` as object `name`; answers its generation.
  http::Request BuildUploadObject(const std::string& bucket, const std::string& name, std::string bytes,
                                  const std::string& content_type) const;
  core::Result<Object> UploadObject(const std::string& bucket, const std::string& name, std::string bytes,
                                    const std::string& content_type);
  // The bytes of `name` from `offset` on, for following an object that grows (a build log):
  // nullopt while it does not exist yet, "" when nothing was added since `offset`.
  core::Result<std::optional<std::string>> ReadObjectFrom(const std::string& bucket, const std::string& name,
                                                          std::uint64_t offset);
  core::Result<iam::Policy> GetIamPolicy(const std::string& bucket);
  core::Result<iam::Policy> SetIamPolicy(const std::string& bucket, const iam::Policy& policy);

 private:
  http::Transport& transport_;
  std::string base_url_;
};

}  // namespace tputrain::gcp::storage
