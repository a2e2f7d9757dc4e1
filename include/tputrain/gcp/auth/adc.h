#pragma once

#include <memory>
#include <string>

#include "tputrain/core/clock.h"
#include "tputrain/core/env.h"
#include "tputrain/core/redact.h"
#include "tputrain/core/result.h"
#include "tputrain/gcp/auth/token_source.h"
#include "tputrain/http/transport.h"

namespace tputrain::gcp::auth {

struct AdcTransports {
  http::Transport* token = nullptr;     // token endpoints (https, or loopback in tests)
  http::Transport* metadata = nullptr;  // may reach the metadata host over plain http
  // Holds every secret read or made (access tokens, refresh tokens, client secrets, private keys,
  // signed assertions), so that one a token endpoint echoes is never printed. May be null.
  core::Redactor* secrets = nullptr;
};

// Application Default Credentials, in gcloud's and google-auth's order:
// 1. an access token file: `access_token_file` (the --access-token-file flag), else
//    CLOUDSDK_AUTH_ACCESS_TOKEN_FILE; used as is, never refreshed (a 401 re-reads the file);
// 2. GOOGLE_APPLICATION_CREDENTIALS: a service_account or authorized_user JSON file;
// 3. $CLOUDSDK_CONFIG (default ~/.config/gcloud)/application_default_credentials.json;
// 4. the metadata server.
// A file that is named but missing, unreadable or malformed is an Unauthenticated error (exit 4)
// naming the file and the problem, never a silent fall-through to the next source.
core::Result<std::unique_ptr<TokenSource>> DefaultCredentials(const core::Env& env,
                                                              const std::string& access_token_file,
                                                              AdcTransports transports, core::Clock& clock);

// gcloud's ADC path: $CLOUDSDK_CONFIG or ~/.config/gcloud, then application_default_credentials.json.
std::string GcloudAdcPath(const core::Env& env);

// Loads a credentials JSON file by its "type".
core::Result<std::unique_ptr<TokenSource>> CredentialsFromFile(const std::string& path, http::Transport& transport,
                                                               core::Clock& clock, core::Redactor* secrets = nullptr);

}  // namespace tputrain::gcp::auth
