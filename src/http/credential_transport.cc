#include "tputrain/http/credential.h"

namespace tputrain::http {
namespace {

core::Result<Headers> WithCredential(Credential& credential, core::Redactor* redactor, const Headers& headers) {
  auto auth = credential.AuthHeaders();
  if (!auth) return core::Fail(auth.error());
  if (redactor != nullptr) {
    for (const auto& [name, value] : *auth) {
      redactor->Hold(value);
      // "Bearer <token>": the token alone is what a server would echo.
      if (auto space = value.find(' '); space != std::string::npos) redactor->Hold(value.substr(space + 1));
    }
  }
  Headers merged;
  for (const auto& header : headers) {
    if (!FindHeader(*auth, header.first)) merged.push_back(header);
  }
  merged.insert(merged.end(), auth->begin(), auth->end());
  return merged;
}

}  // namespace

core::Result<Request> CredentialTransport::Authorized(const Request& request) {
  core::Timeline::Span span(timeline_, "credential");
  auto headers = WithCredential(credential_, redactor_, request.headers);
  if (!headers) return core::Fail(headers.error());
  Request authorized = request;
  authorized.headers = std::move(*headers);
  return authorized;
}

core::Result<Response> CredentialTransport::Send(const Request& request) {
  auto authorized = Authorized(request);
  if (!authorized) return core::Fail(authorized.error());
  auto response = inner_.Send(*authorized);
  if (!response || response->status != 401) return response;
  credential_.Invalidate();
  authorized = Authorized(request);
  if (!authorized) return core::Fail(authorized.error());
  return inner_.Send(*authorized);
}

core::Result<Response> CredentialTransport::Stream(const Request& request, const ChunkHandler& on_chunk) {
  auto authorized = Authorized(request);
  if (!authorized) return core::Fail(authorized.error());
  // Safe to resend: a refused stream's body never reaches `on_chunk` (Transport::Stream).
  auto response = inner_.Stream(*authorized, on_chunk);
  if (!response || response->status != 401) return response;
  credential_.Invalidate();
  authorized = Authorized(request);
  if (!authorized) return core::Fail(authorized.error());
  return inner_.Stream(*authorized, on_chunk);
}

core::Result<Headers> CredentialWebSocketConnector::Authorized(const Headers& headers) {
  return WithCredential(credential_, redactor_, headers);
}

core::Result<std::unique_ptr<WebSocketConnection>> CredentialWebSocketConnector::Connect(const std::string& url,
                                                                                         const Headers& headers) {
  auto authorized = Authorized(headers);
  if (!authorized) return core::Fail(authorized.error());
  auto connection = inner_.Connect(url, *authorized);
  if (connection || connection.error().http_status != 401) return connection;
  credential_.Invalidate();
  authorized = Authorized(headers);
  if (!authorized) return core::Fail(authorized.error());
  return inner_.Connect(url, *authorized);
}

}  // namespace tputrain::http
