#include "tputrain/gcp/storage/client.h"

#include "api_call.h"
#include "tputrain/gcp/error_from_http.h"

namespace tputrain::gcp::storage {
namespace {

// What one read of an object may bring (a build log from where it was last read to its end).
constexpr size_t kMaxObjectReadBytes = 256 * 1024 * 1024;

}  // namespace

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

http::Request Client::BuildDeleteObject(const std::string& bucket, const Object& object) const {
  std::string url = JoinUrl(base_url_, "b/" + http::PathSegment(bucket) + "/o/" + http::PathSegment(object.name));
  if (!object.generation.empty()) url += "?generation=" + http::UrlEncode(object.generation);
  return JsonRequest("DELETE", url);
}

core::Status Client::DeleteObject(const std::string& bucket, const Object& object) {
  auto body = CallJson(transport_, BuildDeleteObject(bucket, object), "storage.objects.delete");
  if (!body) return core::Fail(body.error());
  return {};
}

namespace {

// Uploads go to the same host under /upload: https://storage.googleapis.com/upload/storage/v1/,
// and an override http://127.0.0.1:8080/storage/v1/ becomes http://127.0.0.1:8080/upload/storage/v1/.
std::string UploadBase(const std::string& base_url) {
  constexpr std::string_view kPath = "storage/v1/";
  const auto at = base_url.rfind(kPath);
  if (at == std::string::npos) return JoinUrl(base_url, "upload/");
  return base_url.substr(0, at) + "upload/" + base_url.substr(at);
}

std::string GenerationOf(const nlohmann::json& body) {
  auto generation = body.value("generation", nlohmann::json());
  if (generation.is_string()) return generation.get<std::string>();
  return generation.is_null() ? "" : generation.dump();
}

}  // namespace

http::Request Client::BuildUploadObject(const std::string& bucket, const std::string& name, std::string bytes,
                                        const std::string& content_type) const {
  http::Request request;
  request.method = "POST";
  request.url = JoinUrl(UploadBase(base_url_),
                        "b/" + http::PathSegment(bucket) + "/o?uploadType=media&name=" + http::UrlEncode(name));
  request.headers.emplace_back("Content-Type", content_type);
  request.body = std::move(bytes);
  // Sending the same bytes to the same name again only makes a newer generation of one object.
  request.idempotent = true;
  return request;
}

core::Result<Object> Client::UploadObject(const std::string& bucket, const std::string& name, std::string bytes,
                                          const std::string& content_type) {
  auto body =
      CallJson(transport_, BuildUploadObject(bucket, name, std::move(bytes), content_type), "storage.objects.insert");
  if (!body) return core::Fail(body.error());
  return Object{body->value("name", name), GenerationOf(*body)};
}

core::Result<std::optional<std::string>> Client::ReadObjectFrom(const std::string& bucket, const std::string& name,
                                                                std::uint64_t offset) {
  http::Request request;
  request.url = JoinUrl(base_url_, "b/" + http::PathSegment(bucket) + "/o/" + http::PathSegment(name) + "?alt=media");
  request.headers.emplace_back("Range", "bytes=" + std::to_string(offset) + "-");
  request.max_response_bytes = kMaxObjectReadBytes;
  auto response = transport_.Send(request);
  if (!response) return core::Fail(response.error());
  if (response->status == 404) return std::optional<std::string>();
  if (response->status == 416) return std::optional<std::string>(std::string());
  if (response->status == 200 && offset > 0) {
    // A server that ignores Range sends the whole object: keep only what is new.
    std::string body = response->body.size() > offset ? response->body.substr(offset) : std::string();
    return std::optional<std::string>(std::move(body));
  }
  if (response->status == 200 || response->status == 206) return std::optional<std::string>(response->body);
  return core::Fail(ErrorFromHttp(*response, "storage.objects.get"));
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
