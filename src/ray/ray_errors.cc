#include <algorithm>
#include <cctype>
#include <string>

#include "tputrain/core/utf8.h"
#include "tputrain/ray/jobs_client.h"

namespace tputrain::ray {
namespace {

std::string_view TrimView(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// Ray's error bodies are text/plain: one line, or a Python traceback whose last line with
// words in it is the exception (the head's wrapping of an agent error ends in a lone ".").
std::string OneLine(std::string_view body) {
  body = TrimView(body);
  std::string_view line;
  while (!body.empty()) {
    auto newline = body.rfind('\n');
    line = TrimView(newline == std::string_view::npos ? body : body.substr(newline + 1));
    if (std::any_of(line.begin(), line.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); }))
      break;
    body = newline == std::string_view::npos ? std::string_view() : TrimView(body.substr(0, newline));
  }
  return core::Utf8Excerpt(line, 400, "...");
}

// "Job with submission_id X already exists." inside the head's wrapped 500 traceback.
std::optional<std::string> DuplicateId(std::string_view body) {
  if (body.find("Please use a different submission_id") == std::string_view::npos &&
      body.find("already exists") == std::string_view::npos) {
    return std::nullopt;
  }
  constexpr std::string_view kPrefix = "submission_id ";
  auto start = body.find("Job with submission_id ");
  if (start == std::string_view::npos) return std::string();
  start += std::string_view("Job with ").size() + kPrefix.size();
  auto end = body.find(" already exists", start);
  if (end == std::string_view::npos) return std::string();
  return std::string(body.substr(start, end - start));
}

}  // namespace

core::Error ErrorFromRay(const http::Response& response, std::string_view where) {
  core::Error error;
  error.http_status = response.status;
  error.where = std::string(where);
  error.kind = core::KindFromHttpStatus(response.status);
  const std::string& body = response.body;
  if (auto duplicate = DuplicateId(body)) {
    error.kind = core::ErrorKind::kAlreadyExists;
    error.message = duplicate->empty() ? "a job with this submission id already exists"
                                       : "job '" + *duplicate +
                                             "' already exists: submission ids must be unique "
                                             "(choose another --submission-id)";
    return error;
  }
  if (body.find("No available agent") != std::string::npos) {
    error.kind = core::ErrorKind::kUnavailable;
    error.message = "the Ray head has no job agent ready yet (just started?): " + OneLine(body);
    return error;
  }
  if (auto at = body.find("in a non-terminal state"); at != std::string::npos) {
    error.kind = core::ErrorKind::kFailedPrecondition;
    auto start = body.rfind("Attempted", at);
    auto end = body.find('.', at);
    error.message = start == std::string::npos
                        ? OneLine(body)
                        : body.substr(start, end - start + 1) + " Stop it first (tputrain job stop).";
    return error;
  }
  if (response.status == 405 && body.find("browser") != std::string::npos) {
    error.message = "the Ray dashboard took this request for browser traffic (405): " + OneLine(body);
    return error;
  }
  error.message = OneLine(body);
  if (response.status == 401 || response.status == 403) {
    error.message += " (the dashboard wants a Ray token: set RAY_AUTH_TOKEN or RAY_AUTH_TOKEN_PATH, or pass --header)";
  }
  if (error.message.empty()) error.message = "HTTP " + std::to_string(response.status) + " from the Ray dashboard";
  return error;
}

}  // namespace tputrain::ray
