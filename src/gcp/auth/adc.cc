#include "tputrain/gcp/auth/adc.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "auth/oauth.h"
#include "tputrain/core/file.h"
#include "tputrain/core/json.h"
#include "tputrain/gcp/auth/metadata_server.h"

namespace tputrain::gcp::auth {
namespace {

// Credentials files are a few KiB. Failing to read one is a credentials problem (exit 4), so the
// usage error of core::ReadFile changes kind; its line still names the file and why.
core::Result<std::string> ReadCredentialsFile(const std::string& path, std::string_view what = "the credentials file") {
  auto text = core::ReadFile(path, what, core::kMiB);
  if (text) return text;
  std::string message = text.error().message;
  if (core::IsFileNotFound(text.error())) message += " (No such file or directory)";
  return core::Fail(core::Error::NoCredentials(message));
}

std::string Trim(std::string text) {
  auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

// `flag` names where the path came from (--access-token-file or CLOUDSDK_AUTH_ACCESS_TOKEN_FILE).
std::unique_ptr<TokenSource> AccessTokenFileSource(const std::string& path, const std::string& flag, core::Clock& clock,
                                                   core::Redactor* secrets) {
  auto fetch = [path, flag, secrets]() -> core::Result<AccessToken> {
    auto text = ReadCredentialsFile(path, flag);
    if (!text) return core::Fail(text.error());
    std::string token = Trim(*text);
    if (token.empty()) return core::Fail(core::Error::NoCredentials(path + ": the access token file is empty"));
    if (token.find_first_of(" \t\r\n") != std::string::npos) {
      return core::Fail(core::Error::NoCredentials(path + ": expected only an access token in the file"));
    }
    if (secrets != nullptr) secrets->Hold(token);
    return AccessToken{token, std::nullopt};
  };
  return std::make_unique<CachingTokenSource>(CredentialInfo{"access_token_file", path, ""}, fetch, clock);
}

}  // namespace

std::string GcloudAdcPath(const core::Env& env) {
  std::string dir = env.GetOr("CLOUDSDK_CONFIG", env.Home() + "/.config/gcloud");
  return dir + "/application_default_credentials.json";
}

core::Result<std::unique_ptr<TokenSource>> CredentialsFromFile(const std::string& path, http::Transport& transport,
                                                               core::Clock& clock, core::Redactor* secrets) {
  auto text = ReadCredentialsFile(path);
  if (!text) return core::Fail(text.error());
  auto json = core::ParseJson(*text, "").value_or(nullptr);
  if (!json.is_object()) {
    return core::Fail(core::Error::NoCredentials(path + ": malformed credentials file: not a JSON object"));
  }
  std::string type;
  if (auto it = json.find("type"); it != json.end() && it->is_string()) type = it->get<std::string>();
  if (type == "service_account") return ServiceAccountSource(json, path, transport, clock, secrets);
  if (type == "authorized_user") return AuthorizedUserSource(json, path, transport, clock, secrets);
  if (type.empty()) return core::Fail(core::Error::NoCredentials(path + ": malformed credentials file: no \"type\""));
  return core::Fail(core::Error::NoCredentials(path + ": credentials of type \"" + type +
                                               "\" are not supported (expected service_account or authorized_user)"));
}

core::Result<std::unique_ptr<TokenSource>> DefaultCredentials(const core::Env& env,
                                                              const std::string& access_token_file,
                                                              AdcTransports transports, core::Clock& clock) {
  std::string token_file = access_token_file;
  std::string flag = "--access-token-file";
  if (token_file.empty()) {
    token_file = env.GetOr("CLOUDSDK_AUTH_ACCESS_TOKEN_FILE", "");
    flag = "CLOUDSDK_AUTH_ACCESS_TOKEN_FILE";
  }
  if (!token_file.empty()) {
    auto source = AccessTokenFileSource(token_file, flag, clock, transports.secrets);
    // Read now, so a missing file is reported before any API call is attempted.
    if (auto first = source->Token(); !first) return core::Fail(first.error());
    return source;
  }
  if (auto path = env.Get("GOOGLE_APPLICATION_CREDENTIALS")) {
    return CredentialsFromFile(*path, *transports.token, clock, transports.secrets);
  }
  std::string adc = GcloudAdcPath(env);
  std::error_code ignored;
  if (std::filesystem::exists(adc, ignored))
    return CredentialsFromFile(adc, *transports.token, clock, transports.secrets);
  return MetadataServerSource(env, *transports.metadata, clock);
}

}  // namespace tputrain::gcp::auth
