#include "tputrain/emulator/api.h"

#include <cstring>
#include <ctime>
#include <map>
#include <set>

namespace tputrain::emulator {

std::optional<std::string> ApiRequest::Param(const std::string& name) const {
  auto it = query.find(name);
  if (it == query.end()) return std::nullopt;
  return it->second;
}

bool ApiRequest::BoolParam(const std::string& name, bool fallback) const {
  auto value = Param(name);
  if (!value) return fallback;
  return *value == "true" || *value == "True" || *value == "1";
}

int HttpStatusFor(core::ErrorKind kind) {
  using core::ErrorKind;
  switch (kind) {
    case ErrorKind::kInvalidArgument:
    case ErrorKind::kFailedPrecondition:
      return 400;
    case ErrorKind::kUnauthenticated:
      return 401;
    case ErrorKind::kPermissionDenied:
      return 403;
    case ErrorKind::kNotFound:
      return 404;
    case ErrorKind::kAlreadyExists:
    case ErrorKind::kAborted:
      return 409;
    case ErrorKind::kResourceExhausted:
      return 429;
    case ErrorKind::kCancelled:
      return 499;
    case ErrorKind::kUnavailable:
      return 503;
    case ErrorKind::kDeadlineExceeded:
      return 504;
    case ErrorKind::kInternal:
      return 500;
  }
  return 500;
}

int RpcCodeFor(core::ErrorKind kind) { return core::RpcCode(kind); }

ApiResponse Aip193Error(core::ErrorKind kind, std::string_view message, nlohmann::json details) {
  nlohmann::json error = {
      {"code", HttpStatusFor(kind)}, {"message", std::string(message)}, {"status", std::string(core::KindName(kind))}};
  if (!details.empty()) error["details"] = std::move(details);
  return JsonReply({{"error", std::move(error)}}, HttpStatusFor(kind));
}

ApiResponse StorageError(int http_status, std::string_view reason, std::string_view message) {
  nlohmann::json body = {
      {"error",
       {{"code", http_status},
        {"message", std::string(message)},
        {"errors", {{{"domain", "global"}, {"reason", std::string(reason)}, {"message", std::string(message)}}}}}}};
  return JsonReply(body, http_status);
}

namespace {

std::string_view StorageReasonFor(core::ErrorKind kind) {
  using core::ErrorKind;
  switch (kind) {
    case ErrorKind::kInvalidArgument:
      return "invalid";
    case ErrorKind::kFailedPrecondition:
      return "conditionNotMet";
    case ErrorKind::kUnauthenticated:
      return "required";
    case ErrorKind::kPermissionDenied:
      return "forbidden";
    case ErrorKind::kNotFound:
      return "notFound";
    case ErrorKind::kAlreadyExists:
    case ErrorKind::kAborted:
      return "conflict";
    case ErrorKind::kResourceExhausted:
      return "rateLimitExceeded";
    default:
      return "backendError";
  }
}

// Compute Engine's reason words: "alreadyExists" where Cloud Storage says "conflict".
std::string_view ComputeReasonFor(core::ErrorKind kind) {
  using core::ErrorKind;
  switch (kind) {
    case ErrorKind::kAlreadyExists:
      return "alreadyExists";
    case ErrorKind::kFailedPrecondition:
      return "resourceNotReady";
    default:
      return StorageReasonFor(kind);
  }
}

}  // namespace

ApiResponse ErrorFor(ErrorShape shape, core::ErrorKind kind, std::string_view message, nlohmann::json details) {
  if (shape == ErrorShape::kStorageLegacy) return StorageError(HttpStatusFor(kind), StorageReasonFor(kind), message);
  if (shape == ErrorShape::kComputeLegacy) return StorageError(HttpStatusFor(kind), ComputeReasonFor(kind), message);
  return Aip193Error(kind, message, std::move(details));
}

nlohmann::json ErrorInfoDetail(std::string_view reason, std::string_view domain, const nlohmann::json& metadata) {
  nlohmann::json detail = {{"@type", "type.googleapis.com/google.rpc.ErrorInfo"},
                           {"reason", std::string(reason)},
                           {"domain", std::string(domain)}};
  if (!metadata.empty()) detail["metadata"] = metadata;
  return detail;
}

nlohmann::json BadRequestDetail(std::string_view field, std::string_view description) {
  return {{"@type", "type.googleapis.com/google.rpc.BadRequest"},
          {"fieldViolations", {{{"field", std::string(field)}, {"description", std::string(description)}}}}};
}

nlohmann::json ResourceInfoDetail(std::string_view type, std::string_view name) {
  return {{"@type", "type.googleapis.com/google.rpc.ResourceInfo"},
          {"resourceType", std::string(type)},
          {"resourceName", std::string(name)}};
}

ApiResponse JsonReply(const nlohmann::json& body, int status) {
  ApiResponse response;
  response.status = status;
  // A header value the emulator stored (a content type) may hold any byte: never throw on it.
  response.body = body.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  response.body += "\n";
  return response;
}

namespace {

// Splits "a,b(c,d),e/f" at top-level commas.
std::vector<std::string> SplitTopLevel(std::string_view mask) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  for (char c : mask) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      if (!current.empty()) parts.push_back(current);
      current.clear();
      continue;
    }
    if (c != ' ') current += c;
  }
  if (!current.empty()) parts.push_back(current);
  return parts;
}

}  // namespace

nlohmann::json ApplyFieldMask(const nlohmann::json& body, std::string_view mask) {
  if (!body.is_object() || mask.empty()) return body;
  // Group sub-masks by their first name: "items/name" and "items(size)" both refine "items".
  std::map<std::string, std::string> children;
  std::set<std::string> whole;
  for (const auto& part : SplitTopLevel(mask)) {
    auto slash = part.find('/');
    auto paren = part.find('(');
    if (slash != std::string::npos && (paren == std::string::npos || slash < paren)) {
      auto& child = children[part.substr(0, slash)];
      child += (child.empty() ? "" : ",") + part.substr(slash + 1);
    } else if (paren != std::string::npos && part.back() == ')') {
      auto& child = children[part.substr(0, paren)];
      child += (child.empty() ? "" : ",") + part.substr(paren + 1, part.size() - paren - 2);
    } else {
      whole.insert(part);
    }
  }
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : body.items()) {
    if (whole.count(key)) {
      out[key] = value;
      continue;
    }
    auto child = children.find(key);
    if (child == children.end()) continue;
    if (value.is_array()) {
      nlohmann::json items = nlohmann::json::array();
      for (const auto& item : value) items.push_back(ApplyFieldMask(item, child->second));
      out[key] = std::move(items);
    } else {
      out[key] = ApplyFieldMask(value, child->second);
    }
  }
  return out;
}

nlohmann::json Public(const nlohmann::json& resource) {
  if (!resource.is_object()) return resource;
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : resource.items()) {
    if (!key.empty() && key[0] == '_') continue;
    out[key] = value;
  }
  return out;
}

std::string Rfc3339(int64_t unix_ms) {
  std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buffer[40];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%S", &tm);
  char millis[8];
  std::snprintf(millis, sizeof(millis), ".%03dZ", static_cast<int>(unix_ms % 1000));
  return std::string(buffer) + millis;
}

int64_t ProjectNumber(std::string_view project_id) {
  uint64_t hash = 1469598103934665603ULL;  // FNV-1a
  for (char c : project_id) {
    hash ^= uint8_t(c);
    hash *= 1099511628211ULL;
  }
  return 100000000000LL + static_cast<int64_t>(hash % 900000000000ULL);
}

}  // namespace tputrain::emulator
