#pragma once

#include "tputrain/gcp/auth/token_source.h"
#include "tputrain/http/credential.h"
#include "tputrain/http/transport.h"

namespace tputrain::gcp::auth {

// A Google access token as the http::Credential that a transport stack carries:
// "Authorization: Bearer <token>", cached by the TokenSource until near its expiry.
class TokenCredential final : public http::Credential {
 public:
  explicit TokenCredential(TokenSource& tokens) : tokens_(tokens) {}

  core::Result<http::Headers> AuthHeaders() override;
  void Invalidate() override { tokens_.Invalidate(); }

 private:
  TokenSource& tokens_;
};

// Google API calls with the token: http::CredentialTransport over a TokenCredential (a 401
// invalidates the cached token and the request is sent once more with a fresh one; a second
// 401 is returned as is). A request that cannot get a token fails with the credential error
// (Unauthenticated, exit 4).
class AuthTransport final : public http::Transport {
 public:
  AuthTransport(http::Transport& inner, TokenSource& tokens) : credential_(tokens), transport_(inner, credential_) {}

  core::Result<http::Response> Send(const http::Request& request) override { return transport_.Send(request); }
  core::Result<http::Response> Stream(const http::Request& request, const http::ChunkHandler& on_chunk) override {
    return transport_.Stream(request, on_chunk);
  }

 private:
  TokenCredential credential_;
  http::CredentialTransport transport_;
};

}  // namespace tputrain::gcp::auth
