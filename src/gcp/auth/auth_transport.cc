#include "tputrain/gcp/auth/auth_transport.h"

#include <vector>

namespace tputrain::gcp::auth {

core::Result<http::Request> AuthTransport::WithToken(const http::Request& request) {
  auto token = tokens_.Token();
  if (!token) return core::Fail(token.error());
  http::Request authorized = request;
  std::erase_if(authorized.headers, [](const auto& header) {
    return http::FindHeader({header}, "authorization").has_value();
  });
  authorized.headers.emplace_back("Authorization", "Bearer " + *token);
  return authorized;
}

core::Result<http::Response> AuthTransport::Send(const http::Request& request) {
  auto authorized = WithToken(request);
  if (!authorized) return core::Fail(authorized.error());
  auto response = inner_.Send(*authorized);
  // A 401 means the server did not act, so even a create may be sent again.
  if (!response || response->status != 401) return response;
  tokens_.Invalidate();
  authorized = WithToken(request);
  if (!authorized) return core::Fail(authorized.error());
  return inner_.Send(*authorized);
}

core::Result<http::Response> AuthTransport::Stream(const http::Request& request, const http::ChunkHandler& on_chunk) {
  // Not retried on 401: the error body has already gone to on_chunk by the time the status is known.
  auto authorized = WithToken(request);
  if (!authorized) return core::Fail(authorized.error());
  return inner_.Stream(*authorized, on_chunk);
}

}  // namespace tputrain::gcp::auth
