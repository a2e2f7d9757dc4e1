#pragma once

#include <memory>

#include "tputrain/core/redact.h"
#include "tputrain/core/result.h"
#include "tputrain/core/timeline.h"
#include "tputrain/http/transport.h"
#include "tputrain/http/websocket.h"

namespace tputrain::http {

// A credential that requests carry in their headers and that goes stale: a Google access token
// (ADC), a kubeconfig exec plugin's token, a GKE token. Implementations cache and re-read their
// source when the credential nears expiry or after Invalidate(). Thread-safe.
class Credential {
 public:
  virtual ~Credential() = default;
  // The headers to send now ("Authorization: Bearer ..."), or none (a client certificate does
  // the work). Failing means no credential can be had (ErrorKind::kUnauthenticated, exit 4).
  virtual core::Result<Headers> AuthHeaders() = 0;
  // The server refused what AuthHeaders() gave (401): the next call re-reads the source.
  virtual void Invalidate() = 0;
};

// Adds the credential's headers to every request, replacing any Authorization the caller set.
// A 401 invalidates the credential and the request is sent once more: a 401 means the server did
// not act, so even a create may be resent. Streams are resent only when the 401 came before any
// body reached the reader (a refused watch or log follow), which is always the case for a 401.
// Each credential value sent is held by `redactor` (when given), so no sink prints it even where
// a server echoes it back.
class CredentialTransport final : public Transport {
 public:
  CredentialTransport(Transport& inner, Credential& credential, core::Redactor* redactor = nullptr,
                      core::Timeline* timeline = nullptr)
      : inner_(inner), credential_(credential), redactor_(redactor), timeline_(timeline) {}

  core::Result<Response> Send(const Request& request) override;
  core::Result<Response> Stream(const Request& request, const ChunkHandler& on_chunk) override;

 private:
  core::Result<Request> Authorized(const Request& request);

  Transport& inner_;
  Credential& credential_;
  core::Redactor* redactor_;
  core::Timeline* timeline_;  // the time each credential took to get ("credential")
};

// The same for WebSocket upgrades: each connect (and so each reconnect of a long log follow)
// carries the credential as it is now, so a ten-hour follow outlives the one-hour token it
// started with. A 401 to the upgrade invalidates it and connects once more.
class CredentialWebSocketConnector final : public WebSocketConnector {
 public:
  CredentialWebSocketConnector(WebSocketConnector& inner, Credential& credential, core::Redactor* redactor = nullptr)
      : inner_(inner), credential_(credential), redactor_(redactor) {}

  core::Result<std::unique_ptr<WebSocketConnection>> Connect(const std::string& url, const Headers& headers) override;

 private:
  core::Result<Headers> Authorized(const Headers& headers);

  WebSocketConnector& inner_;
  Credential& credential_;
  core::Redactor* redactor_;
};

}  // namespace tputrain::http
