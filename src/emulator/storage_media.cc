// Cloud Storage object bytes: the three JSON API upload forms (uploadType=media, multipart and
// resumable, as apitools and gcloud send them), downloads with Range (alt=media), and the XML
// API's path-style GET /{bucket}/{object} that gcloud's build-log tailer polls.
#include <openssl/evp.h>

#include <array>
#include <cstdint>

#include "tputrain/core/base64.h"
#include "tputrain/core/file.h"
#include "tputrain/emulator/handlers.h"
#include "tputrain/emulator/request_limits.h"

namespace tputrain::emulator {
namespace {

using nlohmann::json;

constexpr char kApiRoot[] = "https://www.googleapis.com/storage/v1/";
std::string Md5Base64(std::string_view bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_md5(), nullptr);
  return core::EncodeBase64(std::string_view(reinterpret_cast<const char*>(digest.data()), length));
}

// CRC32C (Castagnoli), big-endian and base64 as Cloud Storage reports it.
std::string Crc32cBase64(std::string_view bytes) {
  uint32_t crc = 0xffffffffu;
  for (unsigned char byte : bytes) {
    crc ^= byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1u)));
  }
  crc ^= 0xffffffffu;
  const char big_endian[4] = {static_cast<char>(crc >> 24), static_cast<char>(crc >> 16), static_cast<char>(crc >> 8),
                              static_cast<char>(crc)};
  return core::EncodeBase64(std::string_view(big_endian, 4));
}

std::string Header(const ApiRequest& request, const std::string& name) {
  auto it = request.headers.find(name);
  return it == request.headers.end() ? std::string() : it->second;
}

ApiResponse NoBucket() { return StorageError(404, "notFound", "The specified bucket does not exist."); }

ApiResponse TooLarge() {
  return StorageError(400, "invalid",
                      "The emulator holds objects in memory and takes objects up to " +
                          std::to_string(kMaxObjectBytes / core::kMiB) + " MiB.");
}

// The object name: the `name` query parameter, else the metadata's.
std::string ObjectName(const ApiRequest& request, const json& metadata) {
  auto name = request.Param("name");
  if (name && !name->empty()) return *name;
  return metadata.is_object() ? metadata.value("name", "") : "";
}

ApiResponse Stored(Call& call, const std::string& name, std::string_view bytes, json metadata) {
  if (name.empty()) return StorageError(400, "required", "Required parameter: name");
  if (bytes.size() > kMaxObjectBytes) return TooLarge();
  auto content_type = Header(call.request, "content-type");
  if (!metadata.contains("contentType") && !content_type.empty()) metadata["contentType"] = content_type;
  call.mutated = true;
  return JsonReply(Public(StoreObject(call.world, call.args[0], name, bytes, std::move(metadata), call.now_ms)));
}

std::optional<json> Metadata(const Call& call, std::string_view text, ApiResponse& error) {
  auto parsed = ParseRequestJson(text.empty() ? std::string_view("{}") : text);
  if (!parsed || !parsed->is_object()) {
    error = StorageError(400, "parseError", "Parse Error: the object metadata is not a JSON object.");
    return std::nullopt;
  }
  json metadata = std::move(*parsed);
  if (auto violation = call.schemas.Validate("storage", "Object", metadata, call.method_id)) {
    error = StorageError(400, "invalid", violation->description);
    return std::nullopt;
  }
  return metadata;
}

// multipart/related (RFC 2387): the Object metadata as JSON, then the media, each part with its
// own headers. apitools writes CRLF line breaks; a bare LF is accepted too.
struct Multipart {
  std::string metadata;
  std::string media;
  std::string media_type;
};

std::optional<Multipart> ParseMultipart(const std::string& content_type, const std::string& body) {
  auto at = content_type.find("boundary=");
  if (at == std::string::npos) return std::nullopt;
  std::string boundary = content_type.substr(at + 9);
  if (auto end = boundary.find(';'); end != std::string::npos) boundary.resize(end);
  // apitools quotes it Python's way: boundary='===============123=='.
  if (boundary.size() >= 2 && (boundary.front() == '"' || boundary.front() == '\'') &&
      boundary.back() == boundary.front()) {
    boundary = boundary.substr(1, boundary.size() - 2);
  }
  if (boundary.empty()) return std::nullopt;
  // The earlier of `crlf` and `lf` after `from`, and the length of the one found.
  auto earliest = [&body](const std::string& crlf, const std::string& lf, size_t from) -> std::pair<size_t, size_t> {
    size_t a = body.find(crlf, from), b = body.find(lf, from);
    if (a != std::string::npos && (b == std::string::npos || a <= b)) return {a, crlf.size()};
    return {b, lf.size()};
  };
  const std::string delimiter = "--" + boundary;
  std::vector<std::pair<std::string, std::string>> parts;  // headers, content
  size_t pos = body.find(delimiter);
  while (pos != std::string::npos) {
    pos += delimiter.size();
    if (body.compare(pos, 2, "--") == 0) break;  // the closing delimiter
    auto [headers_end, blank] = earliest("\r\n\r\n", "\n\n", pos);
    if (headers_end == std::string::npos) return std::nullopt;
    const size_t content_start = headers_end + blank;
    auto [content_end, line_break] = earliest("\r\n" + delimiter, "\n" + delimiter, content_start);
    if (content_end == std::string::npos) return std::nullopt;
    parts.emplace_back(body.substr(pos, headers_end - pos), body.substr(content_start, content_end - content_start));
    pos = content_end + line_break - delimiter.size();
  }
  if (parts.size() != 2) return std::nullopt;
  Multipart out{parts[0].second, parts[1].second, ""};
  std::string headers = parts[1].first;
  for (auto& c : headers) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (auto type = headers.find("content-type:"); type != std::string::npos) {
    size_t start = headers.find_first_not_of(' ', type + 13);
    size_t end = headers.find_first_of("\r\n", start);
    out.media_type = parts[1].first.substr(start, end == std::string::npos ? std::string::npos : end - start);
  }
  return out;
}

std::string UploadLocation(const Call& call, const std::string& upload_id) {
  std::string host = Header(call.request, "host");
  std::string scheme = Header(call.request, "x-forwarded-proto");
  return (scheme.empty() ? "http" : scheme) + "://" + (host.empty() ? "127.0.0.1" : host) + "/upload/storage/v1/b/" +
         call.args[0] + "/o?uploadType=resumable&upload_id=" + upload_id;
}

ApiResponse StartResumable(Call& call) {
  ApiResponse error;
  auto metadata = Metadata(call, call.request.body, error);
  if (!metadata) return error;
  const std::string name = ObjectName(call.request, *metadata);
  if (name.empty()) return StorageError(400, "required", "Required parameter: name");
  std::string content_type = Header(call.request, "x-upload-content-type");
  if (!metadata->contains("contentType") && !content_type.empty()) (*metadata)["contentType"] = content_type;
  const std::string length = Header(call.request, "x-upload-content-length");
  if (!length.empty() && (length.size() > 12 || std::stoull(length) > kMaxObjectBytes)) return TooLarge();
  const std::string upload_id =
      "tputrain-upload-" + std::to_string(call.now_ms) + "-" + std::to_string(NextId(call.world));
  call.world["uploads"][upload_id] = {
      {"bucket", call.args[0]}, {"name", name}, {"metadata", *metadata}, {"_content", ""}, {"received", 0}};
  call.mutated = true;
  ApiResponse reply;
  reply.content_type.clear();
  reply.headers["Location"] = UploadLocation(call, upload_id);
  reply.headers["X-GUploader-UploadID"] = upload_id;
  return reply;
}

// "bytes 0-99/200", "bytes 100-199/*", "bytes */200": first, last (or -1), total (or -1).
struct ContentRange {
  int64_t first = -1;
  int64_t last = -1;
  int64_t total = -1;
};

std::optional<ContentRange> ParseContentRange(std::string text) {
  ContentRange range;
  if (text.empty()) return range;
  if (text.rfind("bytes ", 0) != 0) return std::nullopt;
  text = text.substr(6);
  auto slash = text.find('/');
  if (slash == std::string::npos) return std::nullopt;
  std::string span = text.substr(0, slash), total = text.substr(slash + 1);
  auto number = [](const std::string& digits) -> std::optional<int64_t> {
    if (digits.empty() || digits.size() > 15 || digits.find_first_not_of("0123456789") != std::string::npos) {
      return std::nullopt;
    }
    return std::stoll(digits);
  };
  if (total != "*") {
    auto value = number(total);
    if (!value) return std::nullopt;
    range.total = *value;
  }
  if (span != "*") {
    auto dash = span.find('-');
    if (dash == std::string::npos) return std::nullopt;
    auto first = number(span.substr(0, dash)), last = number(span.substr(dash + 1));
    if (!first || !last || *last < *first) return std::nullopt;
    range.first = *first;
    range.last = *last;
  }
  return range;
}

ApiResponse ContinueResumable(Call& call) {
  const std::string upload_id = call.request.Param("upload_id").value_or("");
  auto& uploads = call.world["uploads"];
  auto session = uploads.find(upload_id);
  if (session == uploads.end() || (*session)["bucket"] != call.args[0]) {
    return StorageError(404, "notFound", "No such upload session: " + upload_id);
  }
  auto range = ParseContentRange(Header(call.request, "content-range"));
  if (!range)
    return StorageError(400, "invalid", "Invalid Content-Range header: " + Header(call.request, "content-range"));
  std::string content = ObjectBytes(*session);
  const std::string& chunk = call.request.body;
  if (range->first < 0 && !chunk.empty()) {
    // No Content-Range: the whole object in one request.
    range->first = 0;
    range->last = static_cast<int64_t>(chunk.size()) - 1;
    range->total = static_cast<int64_t>(chunk.size());
  } else if (range->first < 0 && Header(call.request, "content-range").empty()) {
    range->total = 0;  // an empty object
  }
  if (range->first >= 0) {
    if (range->first > static_cast<int64_t>(content.size()) ||
        range->last - range->first + 1 != static_cast<int64_t>(chunk.size())) {
      return StorageError(400, "invalid", "Content-Range does not continue the bytes received so far.");
    }
    // A chunk sent again after a lost reply overlaps what was received: keep the new part.
    size_t skip = content.size() - static_cast<size_t>(range->first);
    if (skip < chunk.size()) content.append(chunk, skip, std::string::npos);
  }
  if (content.size() > kMaxObjectBytes) return TooLarge();
  if (range->total >= 0 && static_cast<int64_t>(content.size()) == range->total) {
    json metadata = (*session)["metadata"];
    const std::string name = (*session)["name"];
    uploads.erase(session);
    call.mutated = true;
    return JsonReply(Public(StoreObject(call.world, call.args[0], name, content, std::move(metadata), call.now_ms)));
  }
  (*session)["_content"] = core::EncodeBase64(content);
  (*session)["received"] = content.size();
  call.mutated = true;
  ApiResponse reply;
  reply.status = 308;  // Resume Incomplete
  reply.content_type.clear();
  if (!content.empty()) reply.headers["Range"] = "bytes=0-" + std::to_string(content.size() - 1);
  return reply;
}

ApiResponse InsertObject(Call& call) {
  if (!call.world["buckets"].contains(call.args[0])) return NoBucket();
  const std::string upload_type = call.request.Param("uploadType").value_or("media");
  if (upload_type == "media") return Stored(call, ObjectName(call.request, json()), call.request.body, json::object());
  if (upload_type == "resumable") return StartResumable(call);
  if (upload_type != "multipart") {
    return StorageError(400, "invalid",
                        "Invalid upload type '" + upload_type + "': use media, multipart or resumable.");
  }
  auto parts = ParseMultipart(Header(call.request, "content-type"), call.request.body);
  if (!parts) {
    return StorageError(400, "invalid",
                        "Invalid multipart request: expected a multipart/related body with a JSON metadata part "
                        "and a media part.");
  }
  ApiResponse error;
  auto metadata = Metadata(call, parts->metadata, error);
  if (!metadata) return error;
  if (!metadata->contains("contentType") && !parts->media_type.empty()) (*metadata)["contentType"] = parts->media_type;
  const std::string name = ObjectName(call.request, *metadata);
  return Stored(call, name, parts->media, std::move(*metadata));
}

// GET /download/storage/v1/b/{bucket}/o/{object}?alt=media: the media path `gcloud storage`
// downloads from.
ApiResponse DownloadObject(Call& call) {
  if (!call.world["buckets"].contains(call.args[0])) return NoBucket();
  const json* object =
      FindStoredObject(call.world, call.args[0], call.args[1], call.request.Param("generation").value_or(""));
  if (object == nullptr) return StorageError(404, "notFound", "No such object: " + call.args[0] + "/" + call.args[1]);
  return MediaReply(call.request, *object);
}

ApiResponse XmlError(int status, const std::string& code, const std::string& message) {
  ApiResponse reply;
  reply.status = status;
  reply.content_type = "application/xml; charset=UTF-8";
  reply.body = "<?xml version='1.0' encoding='UTF-8'?><Error><Code>" + code + "</Code><Message>" + message +
               "</Message></Error>";
  return reply;
}

ApiResponse XmlGetObject(Call& call) {
  if (!call.world["buckets"].contains(call.args[0])) {
    return XmlError(404, "NoSuchBucket", "The specified bucket does not exist.");
  }
  const json* object = FindStoredObject(call.world, call.args[0], call.args[1]);
  if (object == nullptr) return XmlError(404, "NoSuchKey", "The specified key does not exist.");
  ApiResponse reply = MediaReply(call.request, *object);
  if (reply.status == 416) {
    return XmlError(416, "InvalidRange", "The requested range cannot be satisfied.");
  }
  return reply;
}

}  // namespace

const json* FindStoredObject(const json& world, const std::string& bucket, const std::string& name,
                             const std::string& generation) {
  auto objects = world.find("objects");
  if (objects == world.end()) return nullptr;
  auto in_bucket = objects->find(bucket);
  if (in_bucket == objects->end()) return nullptr;
  auto it = in_bucket->find(name);
  if (it == in_bucket->end()) return nullptr;
  if (!generation.empty() && it->value("generation", "") != generation) return nullptr;
  return &*it;
}

std::string ObjectBytes(const json& object) {
  auto bytes = core::DecodeBase64(object.value("_content", ""));
  return bytes ? std::move(*bytes) : std::string();
}

const json& StoreObject(json& world, const std::string& bucket, const std::string& name, std::string_view bytes,
                        json metadata, int64_t now_ms) {
  std::string generation = std::to_string(now_ms * 1000 + NextId(world) % 1000);
  std::string now = Rfc3339(now_ms);
  json object = metadata.is_object() ? std::move(metadata) : json::object();
  object.update({{"kind", "storage#object"},
                 {"id", bucket + "/" + name + "/" + generation},
                 {"selfLink", std::string(kApiRoot) + "b/" + bucket + "/o/" + name},
                 {"mediaLink", std::string("https://storage.googleapis.com/download/storage/v1/b/") + bucket + "/o/" +
                                   name + "?generation=" + generation + "&alt=media"},
                 {"name", name},
                 {"bucket", bucket},
                 {"generation", generation},
                 {"metageneration", "1"},
                 {"storageClass", world["buckets"][bucket].value("storageClass", "STANDARD")},
                 {"size", std::to_string(bytes.size())},
                 {"md5Hash", Md5Base64(bytes)},
                 {"crc32c", Crc32cBase64(bytes)},
                 {"timeCreated", now},
                 {"updated", now},
                 {"timeStorageClassUpdated", now},
                 {"etag", core::EncodeBase64(generation)},
                 {"_content", core::EncodeBase64(bytes)}});
  if (!object.contains("contentType")) object["contentType"] = "application/octet-stream";
  json& stored = world["objects"][bucket][name];
  stored = std::move(object);
  return stored;
}

ApiResponse MediaReply(const ApiRequest& request, const json& object) {
  std::string bytes = ObjectBytes(object);
  ApiResponse reply;
  reply.media = true;
  reply.content_type = object.value("contentType", "application/octet-stream");
  reply.headers["x-goog-generation"] = object.value("generation", "");
  const std::string range = Header(request, "range");
  const int64_t size = static_cast<int64_t>(bytes.size());
  int64_t first = -1, last = size - 1;
  if (range.rfind("bytes=", 0) == 0 && range.find(',') == std::string::npos) {
    std::string span = range.substr(6);
    auto dash = span.find('-');
    auto digits = [](const std::string& text) {
      return !text.empty() && text.size() <= 15 && text.find_first_not_of("0123456789") == std::string::npos;
    };
    if (dash != std::string::npos) {
      std::string from = span.substr(0, dash), to = span.substr(dash + 1);
      if (digits(from) && (to.empty() || digits(to))) {
        first = std::stoll(from);
        if (!to.empty()) last = std::min<int64_t>(std::stoll(to), size - 1);
        if (!to.empty() && std::stoll(to) < first) first = -1;  // not a valid range: ignored, as RFC 9110 says
      } else if (from.empty() && digits(to)) {                  // the last N bytes
        first = std::max<int64_t>(0, size - std::stoll(to));
      }
    }
  }
  if (first < 0) {
    reply.body = std::move(bytes);
    return reply;
  }
  if (first >= size) {
    reply.status = 416;
    reply.content_type = "application/json";
    reply.headers["Content-Range"] = "bytes */" + std::to_string(size);
    reply.body = StorageError(416, "requestedRangeNotSatisfiable", "Request range not satisfiable").body;
    return reply;
  }
  reply.status = 206;
  reply.headers["Content-Range"] =
      "bytes " + std::to_string(first) + "-" + std::to_string(last) + "/" + std::to_string(size);
  reply.body = bytes.substr(static_cast<size_t>(first), static_cast<size_t>(last - first + 1));
  return reply;
}

std::vector<Route> StorageUploadRoutes() {
  const auto s = ErrorShape::kStorageLegacy;
  static const std::string upload = "^/upload/storage/v1/b/([^/]+)/o$";
  // apitools starts resumable uploads at the discovery document's resumable path.
  static const std::string resumable = "^/resumable/upload/storage/v1/b/([^/]+)/o$";
  return {
      {"POST", upload, "storage.objects.insert", InsertObject, s},
      {"PUT", upload, "storage.objects.insert.resumable", ContinueResumable, s},
      {"POST", resumable, "storage.objects.insert.resumablePath", InsertObject, s},
      {"PUT", resumable, "storage.objects.insert.resumablePath.continue", ContinueResumable, s},
      {"GET", "^/download/storage/v1/b/([^/]+)/o/(.+)$", "storage.objects.download", DownloadObject, s},
  };
}

std::vector<Route> StorageXmlRoutes() {
  // A bucket name never starts with '_' (the admin paths) and the object is everything after it.
  // API version prefixes (v1, v2beta1) are never taken for buckets, so a mistyped API path
  // still gets Google's JSON 404.
  return {{"GET", "^/(?!v[0-9][a-z0-9]*/)([a-z0-9][a-z0-9._-]*)/(.+)$", "storage.xml.objects.get", XmlGetObject,
           ErrorShape::kStorageLegacy}};
}

}  // namespace tputrain::emulator
