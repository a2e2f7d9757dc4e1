#include "tputrain/gcp/storage/client.h"

#include "tputrain/gcp/api_call.h"

namespace tputrain::gcp::storage {

Client::Client(http::Transport& transport, std::string base_url)
    : transport_(transport), base_url_(std::move(base_url)) {}

http::Request Client::BuildInsertBucket(const std::string& project, const BucketSpec& spec) const {
  nlohmann::json body = BucketToJson(spec);
  return JsonRequest("POST", JoinUrl(base_url_, "b?project=" + http::UrlEncode(project) + "&projection=noAcl"), &body);
}

http::Request Client::BuildDeleteBucket(const std::string& bucket) const {
  return JsonRequest("DELETE", JoinUrl(base_url_, "b/" + http::PathSegment(bucket)));
}

http::Request Client::BuildSetIamPolicy(const std::string& bucket, const iam::Policy& policy) const {
  // Storage takes the bare Policy, with no {"policy": ...} wrapper.
  nlohmann::json body = iam::PolicyToJson(policy);
  return JsonRequest("PUT", JoinUrl(base_url_, "b/" + http::PathSegment(bucket) + "/iam"), &body);
}

core::Result<Bucket> Client::InsertBucket(const std::string& project, const BucketSpec& spec) {
  auto body = CallJson(transport_, BuildInsertBucket(project, spec), "storage.buckets.insert");
  if (!body) return core::Fail(body.error());
  return BucketFromJson(*body);
}

core::Result<Bucket> Client::GetBucket(const std::string& bucket) {
  auto body = CallJson(transport_, JsonRequest("GET", JoinUrl(base_url_, "b/" + http::PathSegment(bucket))),
                       "storage.buckets.get");
  if (!body) return core::Fail(body.error());
  return BucketFromJson(*body);
}

core::Status Client::DeleteBucket(const std::string& bucket) {
  auto body = CallJson(transport_, BuildDeleteBucket(bucket), "storage.buckets.delete");
  if (!body) return core::Fail(body.error());
  return {};
}

core::Result<std::vector<Bucket>> Client::ListBuckets(const std::string& project) {
  std::vector<Bucket> buckets;
  std::string page_token;
  do {
    std::string url = JoinUrl(base_url_, "b?project=" + http::UrlEncode(project) + "&maxResults=1000&projection=noAcl");
    if (!page_token.empty()) url += "&pageToken=" + http::UrlEncode(page_token);
    auto body = CallJson(transport_, JsonRequest("GET", url), "storage.buckets.list");
    if (!body) return core::Fail(body.error());
    for (const auto& item : body->value("items", nlohmann::json::array())) buckets.push_back(BucketFromJson(item));
    page_token = body->value("nextPageToken", "");
  } while (!page_token.empty());
  return buckets;
}

core::Result<std::vector<Object>> Client::ListObjects(const std::string& bucket) {
  std::vector<Object> objects;
  std::string page_token;
  do {
    std::string url = JoinUrl(base_url_, "b/" + http::PathSegment(bucket) + "/o?maxResults=1000&versions=true");
    if (!page_token.empty()) url += "&pageToken=" + http::UrlEncode(page_token);
    auto body = CallJson(transport_, JsonRequest("GET", url), "storage.objects.list");
    if (!body) return core::Fail(body.error());
    const nlohmann::json items_list = body->value("items", nlohmann::json::array());
    for (const auto& item : items_list) {
      auto generation = item.value("generation", nlohmann::json());
      objects.push_back({item.value("name", ""), generation.is_string() ? generation.get<std::string>()
                                                 : generation.is_null() ? ""
                                                                        : generation.dump()});
    }
    page_token = body->value("nextPageToken", "");
  } while (!page_token.empty());
  return objects;
}

core::Status Client::DeleteObject(const std::string& bucket, const Object& object) {
  std::string url = JoinUrl(base_url_, "b/" + http::PathSegment(bucket) + "/o/" + http::PathSegment(object.name));
  if (!object.generation.empty()) url += "?generation=" + object.generation;
  auto body = CallJson(transport_, JsonRequest("DELETE", url), "storage.objects.delete");
  if (!body) return core::Fail(body.error());
  return {};
}

core::Result<iam::Policy> Client::GetIamPolicy(const std::string& bucket) {
  auto body = CallJson(
      transport_,
      JsonRequest("GET", JoinUrl(base_url_, "b/" + http::PathSegment(bucket) + "/iam?optionsRequestedPolicyVersion=3")),
      "storage.buckets.getIamPolicy");
  if (!body) return core::Fail(body.error());
  return iam::PolicyFromJson(*body);
}

core::Result<iam::Policy> Client::SetIamPolicy(const std::string& bucket, const iam::Policy& policy) {
  auto body = CallJson(transport_, BuildSetIamPolicy(bucket, policy), "storage.buckets.setIamPolicy");
  if (!body) return core::Fail(body.error());
  return iam::PolicyFromJson(*body);
}

}  // namespace tputrain::gcp::storage
