#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "tputrain/core/clock.h"
#include "tputrain/core/redact.h"
#include "tputrain/core/result.h"
#include "tputrain/gcp/auth/token_source.h"
#include "tputrain/http/transport.h"

namespace tputrain::gcp::auth {

// POSTs a form to an OAuth2 token endpoint and reads {"access_token","expires_in"}. An
// {"error","error_description"} reply (invalid_grant: the user must log in again) becomes an
// Unauthenticated error naming `what`; it is not retried. The token got is held by `secrets`.
core::Result<AccessToken> ExchangeToken(http::Transport& transport, core::Clock& clock, const std::string& token_uri,
                                        const std::string& form_body, const std::string& what,
                                        core::Redactor* secrets = nullptr);

// A "type": "service_account" key file (already parsed): a JWT signed RS256 with its
// private_key, exchanged at its token_uri with the jwt-bearer grant. `path` names the file in
// errors. The key's fields are checked here, so a malformed file fails before any request.
// `secrets` (may be null) holds the private key and each signed assertion and token.
core::Result<std::unique_ptr<TokenSource>> ServiceAccountSource(const nlohmann::json& key, const std::string& path,
                                                                http::Transport& transport, core::Clock& clock,
                                                                core::Redactor* secrets = nullptr);

// A "type": "authorized_user" file (gcloud auth application-default login): the refresh-token
// grant at the file's token_uri, by default Google's. `secrets` holds the refresh token, the
// client secret and each token.
core::Result<std::unique_ptr<TokenSource>> AuthorizedUserSource(const nlohmann::json& file, const std::string& path,
                                                                http::Transport& transport, core::Clock& clock,
                                                                core::Redactor* secrets = nullptr);

}  // namespace tputrain::gcp::auth
