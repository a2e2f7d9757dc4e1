#pragma once

#include <memory>
#include <optional>

#include "tputrain/cli/context.h"
#include "tputrain/core/clock.h"
#include "tputrain/gcp/auth/auth_transport.h"
#include "tputrain/gcp/auth/token_source.h"
#include "tputrain/gcp/endpoints.h"
#include "tputrain/http/curl_transport.h"
#include "tputrain/http/dry_run_transport.h"
#include "tputrain/http/logging_transport.h"
#include "tputrain/http/retrying_transport.h"

namespace tputrain::cli {

// Everything a command needs to call Google APIs, built once from the Context:
//   client → [DryRun] → Auth → Retrying → [Logging] → Curl
// DryRun is outermost so that a mutation is printed without needing a token; Auth sits outside
// Retrying so a 401 refreshes once and resends through the same retry loop; Logging is
// innermost so --verbose shows every attempt (and, through the token transport, every token
// exchange) with secrets redacted. Token endpoints and the metadata server get their own
// Retrying → [Logging] → Curl chains; only the metadata chain may use plain http (to its host).
class GcpStack {
 public:
  // Resolves credentials (Application Default Credentials order); a missing or malformed
  // credentials file fails here with exit 4.
  static core::Result<std::unique_ptr<GcpStack>> Create(Context& context);

  http::Transport& transport() { return *api_; }
  const gcp::Endpoints& endpoints() const { return endpoints_; }
  gcp::auth::TokenSource& tokens() { return *tokens_; }
  core::Clock& clock() { return clock_; }
  core::Sleeper& sleeper() { return sleeper_; }

 private:
  explicit GcpStack(Context& context);

  core::SystemClock clock_;
  core::RealSleeper sleeper_;
  gcp::Endpoints endpoints_;
  http::CurlTransport curl_;
  http::CurlTransport metadata_curl_;
  std::optional<http::LoggingTransport> logged_curl_;
  std::optional<http::LoggingTransport> logged_metadata_;
  std::optional<http::RetryingTransport> token_retrying_;
  std::optional<http::RetryingTransport> metadata_retrying_;
  std::unique_ptr<gcp::auth::TokenSource> tokens_;
  std::optional<http::RetryingTransport> api_retrying_;
  std::optional<gcp::auth::AuthTransport> auth_;
  std::optional<http::DryRunTransport> dry_run_;
  http::Transport* api_ = nullptr;
};

// CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE, else REQUESTS_CA_BUNDLE, else "" (the system store).
std::string CaBundleFromEnv(const core::Env& env);

}  // namespace tputrain::cli
