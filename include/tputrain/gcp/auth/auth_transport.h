#pragma once

#include "tputrain/gcp/auth/token_source.h"
#include "tputrain/http/transport.h"

namespace tputrain::gcp::auth {

// Adds "Authorization: Bearer <token>" to every request. A 401 reply invalidates the cached
// token and the request is sent once more with a fresh one; a second 401 is returned as is.
// Streams are not resent on 401. A request that cannot get a token fails with the credential error (Unauthenticated, exit 4).
class AuthTransport final : public http::Transport {
 public:
  AuthTransport(http::Transport& inner, TokenSource& tokens) : inner_(inner), tokens_(tokens) {}

  core::Result<http::Response> Send(const http::Request& request) override;
  core::Result<http::Response> Stream(const http::Request& request, const http::ChunkHandler& on_chunk) override;

 private:
  core::Result<http::Request> WithToken(const http::Request& request);

  http::Transport& inner_;
  TokenSource& tokens_;
};

}  // namespace tputrain::gcp::auth
