#pragma once

#include <memory>

#include "tputrain/gcp/auth/auth_transport.h"
#include "tputrain/workflow/root.h"

namespace tputrain::workflow {

// Google's chain, and the token endpoints' and metadata server's own (Retry → [Logging] → Curl;
// only the metadata chain may use plain http, to its one host).
struct Root::GoogleChain {
  std::unique_ptr<http::Transport> token_endpoints;
  std::unique_ptr<http::Transport> metadata;
  std::unique_ptr<gcp::auth::TokenSource> tokens;
  std::unique_ptr<gcp::auth::TokenCredential> credential;
  std::unique_ptr<http::Transport> api;
  http::Headers api_headers;  // x-goog-user-project, when a quota project is set
};

}  // namespace tputrain::workflow
