#include "api_call.h"

#include "tputrain/core/json.h"
#include "tputrain/gcp/error_from_http.h"

namespace tputrain::gcp {

http::Request JsonRequest(std::string method, std::string url, const nlohmann::json* body) {
  http::Request request;
  request.method = std::move(method);
  request.url = std::move(url);
  request.headers.emplace_back("Accept", "application/json");
  // Creates are not safe to repeat: a lost reply is resolved by reading the resource back.
  request.idempotent = request.method != "POST";
  if (body != nullptr) {
    request.headers.emplace_back("Content-Type", "application/json");
    request.body = body->dump();  // nlohmann::json objects keep keys sorted
  }
  return request;
}

core::Result<nlohmann::json> CallJson(http::Transport& transport, const http::Request& request,
                                      std::string_view where) {
  auto response = transport.Send(request);
  if (!response) {
    core::Error error = response.error();
    if (error.where.empty()) error.where = std::string(where);
    return core::Fail(std::move(error));
  }
  if (!response->ok()) return core::Fail(ErrorFromHttp(*response, where));
  if (response->body.empty()) return nlohmann::json::object();
  auto parsed = core::ParseJson(response->body, std::string(where) + ": the server's reply");
  if (!parsed) {
    return core::Fail(
        core::Error{core::ErrorKind::kInternal, parsed.error().message, response->status, "", std::string(where)});
  }
  return parsed;
}

std::string JoinUrl(const std::string& base, std::string_view path) {
  std::string url = base;
  if (url.empty() || url.back() != '/') url += '/';
  url += path;
  return url;
}

}  // namespace tputrain::gcp
