#include "tputrain/gcp/error_from_http.h"

#include <charconv>
#include <string>

#include <nlohmann/json.hpp>

#include "tputrain/core/json.h"
#include "tputrain/core/json_fields.h"
#include "tputrain/core/utf8.h"
#include "tputrain/http/retrying_transport.h"

namespace tputrain::gcp {
namespace {

constexpr std::string_view kErrorInfo = "type.googleapis.com/google.rpc.ErrorInfo";
constexpr std::string_view kRetryInfo = "type.googleapis.com/google.rpc.RetryInfo";

const nlohmann::json* ErrorObject(const nlohmann::json& body) {
  if (!body.is_object()) return nullptr;
  auto it = body.find("error");
  return it != body.end() && it->is_object() ? &*it : nullptr;
}

const nlohmann::json* DetailOfType(const nlohmann::json& error, std::string_view type) {
  auto details = error.find("details");
  if (details == error.end() || !details->is_array()) return nullptr;
  for (const auto& detail : *details) {
    if (detail.is_object() && core::StringAt(detail, "@type") == type) return &detail;
  }
  return nullptr;
}

nlohmann::json ParseBody(const std::string& body) {
  return core::ParseJson(body, "").value_or(nullptr);  // not JSON: the status alone speaks
}

}  // namespace

std::optional<std::chrono::milliseconds> ParseProtobufDuration(std::string_view text) {
  if (text.size() < 2 || text.back() != 's') return std::nullopt;
  text.remove_suffix(1);
  double seconds = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (ec != std::errc() || end != text.data() + text.size() || seconds < 0) return std::nullopt;
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

std::optional<std::chrono::milliseconds> RetryDelayOf(const http::Response& response) {
  auto body = ParseBody(response.body);
  const auto* error = ErrorObject(body);
  if (error != nullptr) {
    if (const auto* retry = DetailOfType(*error, kRetryInfo)) {
      if (auto delay = ParseProtobufDuration(core::StringAt(*retry, "retryDelay"))) return delay;
    }
  }
  if (auto after = http::RetryAfterHeader(response)) return after;
  // A request-rate quota ("... limit 'Read requests per minute' ...") frees up within its
  // window, unlike a resource quota (chips, CPUs): worth a few backed-off tries.
  if (response.status == 429 && error != nullptr) {
    std::string message = core::StringAt(*error, "message");
    if (message.find(" per minute") != std::string::npos || message.find(" per second") != std::string::npos) {
      return std::chrono::milliseconds(1000);
    }
  }
  return std::nullopt;
}

core::Error ErrorFromHttp(const http::Response& response, std::string_view where) {
  core::Error error;
  error.http_status = response.status;
  error.where = std::string(where);
  error.kind = core::KindFromHttpStatus(response.status);
  auto body = ParseBody(response.body);
  const auto* object = ErrorObject(body);
  if (object == nullptr) {
    std::string text = core::OneLineExcerpt(response.body, 300);
    error.message =
        std::string(where) + ": HTTP " + std::to_string(response.status) + (text.empty() ? std::string() : ": " + text);
    return error;
  }
  if (auto status = core::StringAt(*object, "status"); !status.empty()) {
    error.kind = core::KindFromStatusName(status);
  } else if (response.status == 409) {
    error.kind =
        core::ErrorKind::kAlreadyExists;  // Cloud Storage's legacy shape: a 409 is "conflict", the name is taken
  }
  // Google's words, on the one line of an error (a message of several lines would read as more).
  error.message = core::OneLineExcerpt(core::StringAt(*object, "message"), std::string::npos);
  if (error.message.empty()) error.message = std::string(where) + ": HTTP " + std::to_string(response.status);
  if (const auto* info = DetailOfType(*object, kErrorInfo)) {
    error.reason = core::StringAt(*info, "reason");
    if (auto metadata = info->find("metadata"); metadata != info->end() && metadata->is_object()) {
      for (const auto& [key, value] : metadata->items()) {
        if (value.is_string()) error.metadata[key] = value.get<std::string>();
      }
    }
  }
  if (error.reason.empty()) {
    auto errors = object->find("errors");
    if (errors != object->end() && errors->is_array() && !errors->empty() && (*errors)[0].is_object()) {
      error.reason = core::StringAt((*errors)[0], "reason");
    }
  }
  if (response.status == 429 && error.reason.empty()) {
    error.reason = std::string(RetryDelayOf(response) ? kReasonRateLimited : kReasonQuotaExceeded);
  }
  if (error.reason == kReasonServiceDisabled && error.metadata.count("service") != 0) {
    // Google's text is three sentences and a console link; what to do fits on one line.
    const std::string& service = error.metadata["service"];
    error.message = service + " is not enabled in this project: run 'tputrain services enable " + service +
                    "', or run the command again with --enable-apis";
  }
  return error;
}

}  // namespace tputrain::gcp
