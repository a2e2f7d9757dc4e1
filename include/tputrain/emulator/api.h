#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/error.h"

// The emulator's view of one HTTP exchange, independent of the HTTP server library, so that
// every API handler can be tested by calling it directly.
namespace tputrain::emulator {

struct ApiRequest {
  std::string method;                             // "GET", "POST", ...
  std::string path;                               // percent-decoded, without the query
  std::multimap<std::string, std::string> query;  // decoded
  std::map<std::string, std::string> headers;     // names lower-cased
  std::string body;

  std::optional<std::string> Param(const std::string& name) const;
  // Python-cased booleans ("True") are accepted because gcloud sends them.
  bool BoolParam(const std::string& name, bool fallback = false) const;
};

struct ApiResponse {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  // Further response headers ("Location", "Content-Range", "Range"), as Google sends them.
  std::map<std::string, std::string> headers;
  // An object's bytes (a range of them already cut): served as they are, never compressed.
  bool media = false;
  // Close the connection instead of answering (fault injection).
  bool drop_connection = false;
};

// Which error JSON a path uses: Cloud Storage and Compute Engine keep the legacy shape
// ({"code", "message", "errors": [...]}), each with its own reason words.
enum class ErrorShape { kAip193, kStorageLegacy, kComputeLegacy };

int HttpStatusFor(core::ErrorKind kind);
int RpcCodeFor(core::ErrorKind kind);

// {"error": {"code", "message", "status", "details"}} (AIP-193).
ApiResponse Aip193Error(core::ErrorKind kind, std::string_view message,
                        nlohmann::json details = nlohmann::json::array());
// {"error": {"code", "message", "errors": [{"domain", "reason", "message"}]}}.
ApiResponse StorageError(int http_status, std::string_view reason, std::string_view message);
ApiResponse ErrorFor(ErrorShape shape, core::ErrorKind kind, std::string_view message,
                     nlohmann::json details = nlohmann::json::array());

nlohmann::json ErrorInfoDetail(std::string_view reason, std::string_view domain,
                               const nlohmann::json& metadata = nlohmann::json::object());
nlohmann::json BadRequestDetail(std::string_view field, std::string_view description);
nlohmann::json ResourceInfoDetail(std::string_view type, std::string_view name);

ApiResponse JsonReply(const nlohmann::json& body, int status = 200);

// Keeps the parts of `body` named by a `fields=` mask ("bindings,etag", "items/name,items(size)").
nlohmann::json ApplyFieldMask(const nlohmann::json& body, std::string_view mask);

// Drops the emulator's bookkeeping keys (those starting with '_') before a resource is shown.
nlohmann::json Public(const nlohmann::json& resource);

std::string Rfc3339(int64_t unix_ms);

// A stable 12-digit number per project id: Google's projectNumber for the emulated project.
int64_t ProjectNumber(std::string_view project_id);

}  // namespace tputrain::emulator
