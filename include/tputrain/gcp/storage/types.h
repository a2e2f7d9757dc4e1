#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tputrain::gcp::storage {

struct BucketSpec {
  std::string name;
  std::string location;       // empty: the server's default (US)
  std::string storage_class;  // empty: STANDARD
  bool uniform_access = false;
  std::map<std::string, std::string> labels;
};

struct Bucket {
  std::string name;
  std::string location;
  std::string storage_class;
  bool uniform_access = false;
  std::map<std::string, std::string> labels;
  nlohmann::json raw;
};

struct Object {
  std::string name;
  std::string generation;
};

nlohmann::json BucketToJson(const BucketSpec& spec);
Bucket BucketFromJson(const nlohmann::json& json);
// Location and storage class compare case-insensitively, as the API treats them.
std::vector<std::string> DiffBucket(const BucketSpec& want, const Bucket& have);

}  // namespace tputrain::gcp::storage
