#include "tputrain/workflow/google_credentials.h"

#include "tputrain/gcp/auth/token_source.h"
#include "tputrain/workflow/root.h"

namespace tputrain::workflow {

core::Result<GoogleCredentialStatus> CheckGoogleCredentials(Root& root) {
  auto tokens = root.GoogleTokens();
  if (!tokens) return core::Fail(tokens.error());
  if (auto token = (*tokens)->Token(); !token) return core::Fail(token.error());
  auto info = (*tokens)->Info();
  if (!info) return core::Fail(info.error());
  return GoogleCredentialStatus{info->source, info->origin, info->account};
}

core::Result<std::string> GoogleAccessToken(Root& root) {
  auto tokens = root.GoogleTokens();
  if (!tokens) return core::Fail(tokens.error());
  return (*tokens)->Token();
}

nlohmann::json ToJson(const GoogleCredentialStatus& status) {
  return {{"source", status.source},
          {"origin", status.origin},
          {"account", status.account.empty() ? nlohmann::json(nullptr) : nlohmann::json(status.account)},
          {"token", "valid"}};
}

}  // namespace tputrain::workflow
