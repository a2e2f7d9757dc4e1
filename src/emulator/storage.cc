#include <algorithm>
#include <regex>
#include <set>

#include "field_rules.h"
#include "tputrain/core/base64.h"
#include "tputrain/emulator/handlers.h"
#include "tputrain/emulator/request_limits.h"

// Cloud Storage storage/v1: buckets, bucket IAM, objects (list, get, delete) and the extra reads
// `gcloud storage rm -r` makes. Errors use Cloud Storage's legacy JSON shape. Uploads and
// downloads of the bytes are in storage_media.cc.
namespace tputrain::emulator {
namespace {

using core::ErrorKind;
using nlohmann::json;

constexpr char kApiRoot[] = "https://www.googleapis.com/storage/v1/";

ApiResponse NoBucket() { return StorageError(404, "notFound", "The specified bucket does not exist."); }

json* FindBucket(Call& call) {
  auto& buckets = call.world["buckets"];
  auto it = buckets.find(call.args[0]);
  return it == buckets.end() ? nullptr : &*it;
}

std::string PolicyKey(const std::string& bucket) { return "storage:projects/_/buckets/" + bucket; }

// Storage etags are the base64 of a small protobuf (field 1 = the policy version counter).
std::string PolicyEtag(int64_t counter) {
  std::string bytes = "\x08";
  do {
    uint8_t byte = counter & 0x7f;
    counter >>= 7;
    if (counter != 0) byte |= 0x80;
    bytes += static_cast<char>(byte);
  } while (counter != 0);
  return core::EncodeBase64(bytes);
}

std::string LocationType(const std::string& location) {
  static const std::regex kRegion("^[A-Z]+-[A-Z]+[0-9]+$");
  if (location == "US" || location == "EU" || location == "ASIA") return "multi-region";
  if (MatchesBounded(location, kRegion)) return "region";
  return "dual-region";
}

std::string Upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::toupper(c); });
  return text;
}

}  // namespace

json& StoreBucket(json& world, const json& request, const std::string& project, int64_t now_ms) {
  const std::string name = request.value("name", "");
  json bucket = request;
  std::string location = Upper(bucket.value("location", "US"));
  std::string now = Rfc3339(now_ms);
  bucket["kind"] = "storage#bucket";
  bucket["id"] = name;
  bucket["selfLink"] = std::string(kApiRoot) + "b/" + name;
  bucket["projectNumber"] = std::to_string(ProjectNumber(project));
  bucket["location"] = location;
  bucket["locationType"] = LocationType(location);
  bucket["storageClass"] = Upper(bucket.value("storageClass", "STANDARD"));
  bucket["timeCreated"] = now;
  bucket["updated"] = now;
  bucket["metageneration"] = "1";
  bucket["etag"] = "CAE=";
  bucket["rpo"] = "DEFAULT";
  if (!bucket.contains("iamConfiguration")) {
    bucket["iamConfiguration"] = {{"bucketPolicyOnly", {{"enabled", false}}},
                                  {"uniformBucketLevelAccess", {{"enabled", false}}},
                                  {"publicAccessPrevention", "inherited"}};
  }
  bucket["softDeletePolicy"] = {{"retentionDurationSeconds", "604800"}, {"effectiveTime", now}};
  bucket["_project"] = project;
  world["buckets"][name] = bucket;
  world["objects"][name] = json::object();
  world["policies"][PolicyKey(name)] = {
      {"version", 1},
      {"bindings",
       {{{"role", "roles/storage.legacyBucketOwner"},
         {"members", {"projectEditor:" + project, "projectOwner:" + project}}},
        {{"role", "roles/storage.legacyBucketReader"}, {"members", {"projectViewer:" + project}}}}},
      {"_counter", 1}};
  return world["buckets"][name];
}

namespace {

ApiResponse InsertBucket(Call& call) {
  ApiResponse error;
  auto body = call.Body("storage", "Bucket", ErrorShape::kStorageLegacy, error);
  if (!body) return error;
  auto project = call.request.Param("project");
  if (!project || project->empty()) return StorageError(400, "required", "Required parameter: project");
  std::string name = body->value("name", "");
  static const std::regex kName("^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$");
  if (!std::regex_match(name, kName) || name.find("..") != std::string::npos) {
    return StorageError(400, "invalid", "Invalid bucket name: '" + name + "'");
  }
  if (auto reserved = ReservedBucketNameProblem(name)) {
    return StorageError(400, "invalid", "Invalid bucket name: '" + name + "': " + *reserved + ".");
  }
  if (auto bad = LabelProblem(body->value("labels", json())))
    return StorageError(400, "invalid", "Invalid argument: " + *bad + ".");
  if (call.world["buckets"].contains(name)) {
    return StorageError(409, "conflict",
                        "Your previous request to create the named bucket succeeded and you already own it.");
  }
  json& bucket = StoreBucket(call.world, *body, *project, call.now_ms);
  call.mutated = true;
  return JsonReply(Public(bucket));
}

ApiResponse ListBuckets(Call& call) {
  auto project = call.request.Param("project");
  if (!project || project->empty()) return StorageError(400, "required", "Required parameter: project");
  json items = json::array();
  std::string prefix = call.request.Param("prefix").value_or("");
  for (const auto& [name, bucket] : call.world["buckets"].items()) {
    if (bucket.value("_project", "") == *project && name.rfind(prefix, 0) == 0) items.push_back(Public(bucket));
  }
  json reply = {{"kind", "storage#buckets"}};
  if (!items.empty()) reply["items"] = items;
  return JsonReply(reply);
}

ApiResponse GetBucket(Call& call) {
  json* bucket = FindBucket(call);
  if (bucket == nullptr) return NoBucket();
  return JsonReply(Public(*bucket));
}

ApiResponse DeleteBucket(Call& call) {
  json* bucket = FindBucket(call);
  if (bucket == nullptr) return NoBucket();
  if (!call.world["objects"][call.args[0]].empty()) {
    return StorageError(409, "conflict", "The bucket you tried to delete is not empty.");
  }
  call.world["buckets"].erase(call.args[0]);
  call.world["objects"].erase(call.args[0]);
  call.world["policies"].erase(PolicyKey(call.args[0]));
  call.mutated = true;
  ApiResponse reply;
  reply.status = 204;
  reply.content_type.clear();
  return reply;
}

json ShowPolicy(const std::string& bucket, const json& policy) {
  json shown = Public(policy);
  shown["kind"] = "storage#policy";
  shown["resourceId"] = "projects/_/buckets/" + bucket;
  shown["etag"] = PolicyEtag(policy.value("_counter", int64_t{1}));
  return shown;
}

ApiResponse GetBucketIam(Call& call) {
  if (FindBucket(call) == nullptr) return NoBucket();
  return JsonReply(ShowPolicy(call.args[0], call.world["policies"][PolicyKey(call.args[0])]));
}

ApiResponse SetBucketIam(Call& call) {
  ApiResponse error;
  auto body = call.Body("storage", "Policy", ErrorShape::kStorageLegacy, error);
  if (!body) return error;
  if (FindBucket(call) == nullptr) return NoBucket();
  json& policy = call.world["policies"][PolicyKey(call.args[0])];
  int64_t counter = policy.value("_counter", int64_t{1});
  if (body->contains("etag") && (*body)["etag"] != PolicyEtag(counter)) {
    return StorageError(412, "conditionNotMet", "At least one of the pre-conditions you specified did not hold.");
  }
  if (auto bad = BindingsProblem(body->value("bindings", json()))) return StorageError(400, "invalid", *bad + ".");
  policy = {{"version", body->value("version", 1)},
            {"bindings", body->value("bindings", json::array())},
            {"_counter", counter + 1}};
  call.mutated = true;
  return JsonReply(ShowPolicy(call.args[0], policy));
}

ApiResponse GetStorageLayout(Call& call) {
  json* bucket = FindBucket(call);
  if (bucket == nullptr) return NoBucket();
  return JsonReply({{"kind", "storage#storageLayout"},
                    {"bucket", call.args[0]},
                    {"location", (*bucket)["location"]},
                    {"locationType", (*bucket)["locationType"]},
                    {"hierarchicalNamespace", {{"enabled", false}}}});
}

ApiResponse ListManagedFolders(Call& call) {
  if (FindBucket(call) == nullptr) return NoBucket();
  return JsonReply({{"kind", "storage#managedFolders"}});
}

ApiResponse ListObjects(Call& call) {
  if (FindBucket(call) == nullptr) return NoBucket();
  std::string prefix = call.request.Param("prefix").value_or("");
  std::string delimiter = call.request.Param("delimiter").value_or("");
  std::string token = call.request.Param("pageToken").value_or("");
  size_t max_results = 1000;
  if (auto max = call.request.Param("maxResults")) max_results = std::clamp<size_t>(std::stoul(*max), 1, 1000);
  json items = json::array();
  std::set<std::string> prefixes;
  std::string next;
  for (const auto& [name, object] : call.world["objects"][call.args[0]].items()) {  // sorted by name
    if (name.rfind(prefix, 0) != 0 || (!token.empty() && name <= token)) continue;
    if (!delimiter.empty()) {
      auto cut = name.find(delimiter, prefix.size());
      if (cut != std::string::npos) {
        prefixes.insert(name.substr(0, cut + delimiter.size()));
        continue;
      }
    }
    if (items.size() == max_results) {
      next = items.back()["name"];
      break;
    }
    items.push_back(Public(object));
  }
  json reply = {{"kind", "storage#objects"}};
  if (!items.empty()) reply["items"] = items;
  if (!prefixes.empty()) reply["prefixes"] = prefixes;
  if (!next.empty()) reply["nextPageToken"] = next;
  return JsonReply(reply);
}

json* FindObject(Call& call) {
  auto& objects = call.world["objects"][call.args[0]];
  auto it = objects.find(call.args[1]);
  if (it == objects.end()) return nullptr;
  auto generation = call.request.Param("generation");
  if (generation && *generation != it->value("generation", "")) return nullptr;
  return &*it;
}

ApiResponse NoObject(const Call& call) {
  return StorageError(404, "notFound", "No such object: " + call.args[0] + "/" + call.args[1]);
}

ApiResponse GetObject(Call& call) {
  if (FindBucket(call) == nullptr) return NoBucket();
  json* object = FindObject(call);
  if (object == nullptr) return NoObject(call);
  if (call.request.Param("alt") == "media") return MediaReply(call.request, *object);
  return JsonReply(Public(*object));
}

ApiResponse DeleteObject(Call& call) {
  if (FindBucket(call) == nullptr) return NoBucket();
  if (FindObject(call) == nullptr) return NoObject(call);
  call.world["objects"][call.args[0]].erase(call.args[1]);
  call.mutated = true;
  ApiResponse reply;
  reply.status = 204;
  reply.content_type.clear();
  return reply;
}

}  // namespace

std::vector<Route> StorageRoutes() {
  const auto s = ErrorShape::kStorageLegacy;
  static const std::string b = "^/storage/v1/b", one = b + "/([^/]+)";
  return {
      {"POST", b + "$", "storage.buckets.insert", InsertBucket, s},
      {"GET", b + "$", "storage.buckets.list", ListBuckets, s},
      {"GET", one + "$", "storage.buckets.get", GetBucket, s},
      {"DELETE", one + "$", "storage.buckets.delete", DeleteBucket, s},
      {"GET", one + "/iam$", "storage.buckets.getIamPolicy", GetBucketIam, s},
      {"PUT", one + "/iam$", "storage.buckets.setIamPolicy", SetBucketIam, s},
      {"GET", one + "/storageLayout$", "storage.buckets.getStorageLayout", GetStorageLayout, s},
      {"GET", one + "/managedFolders$", "storage.managedFolders.list", ListManagedFolders, s},
      {"GET", one + "/o$", "storage.objects.list", ListObjects, s},
      {"GET", one + "/o/(.+)$", "storage.objects.get", GetObject, s},
      {"DELETE", one + "/o/(.+)$", "storage.objects.delete", DeleteObject, s},
  };
}

}  // namespace tputrain::emulator
