#pragma once

// What `tputrain auth` shows of the Google credentials every Google call uses (Application
// Default Credentials' order, resolved by the root).
#include <string>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"

namespace tputrain::workflow {

class Root;

// Which credentials are in use and whose they are. Never the token.
struct GoogleCredentialStatus {
  std::string source;   // access_token_file, service_account, authorized_user or metadata_server
  std::string origin;   // the file, or the metadata server's URL
  std::string account;  // the e-mail, when the source names one (empty: it does not)
};

// The status, once a token was got with the credentials: getting one proves they work, so
// credentials that cannot give one fail here with the reason, never show as in use.
core::Result<GoogleCredentialStatus> CheckGoogleCredentials(Root& root);
// `auth status --format json`: source, origin, account (null when none is named), token "valid".
nlohmann::json ToJson(const GoogleCredentialStatus& status);

// An access token of those credentials, for a user to hand to another tool.
core::Result<std::string> GoogleAccessToken(Root& root);

}  // namespace tputrain::workflow
