#include "auth/oauth.h"

#include <initializer_list>

#include "auth/jwt.h"
#include "tputrain/core/json.h"
#include "tputrain/core/json_fields.h"
#include "tputrain/core/redact.h"

namespace tputrain::gcp::auth {
namespace {

core::Status RequireFields(const nlohmann::json& file, const std::string& path,
                           std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    if (core::StringAt(file, key).empty()) {
      return core::Fail(core::Error::NoCredentials(path + ": malformed credentials file: missing \"" + key + "\""));
    }
  }
  return {};
}

void Hold(core::Redactor* secrets, std::string_view secret) {
  if (secrets != nullptr) secrets->Hold(secret);
}

}  // namespace

core::Result<AccessToken> ExchangeToken(http::Transport& transport, core::Clock& clock, const std::string& token_uri,
                                        const std::string& form_body, const std::string& what,
                                        core::Redactor* secrets) {
  http::Request request;
  request.method = "POST";
  request.url = token_uri;
  request.headers = {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}};
  request.body = form_body;
  request.idempotent = true;  // a token grant creates nothing; asking twice is harmless
  auto response = transport.Send(request);
  if (!response) {
    auto error = response.error();
    error.kind = core::ErrorKind::kUnauthenticated;
    error.message = what + ": cannot get an access token from " + token_uri + ": " + error.message;
    return core::Fail(std::move(error));
  }
  auto body = core::ParseJson(response->body, "").value_or(nullptr);
  if (!response->ok()) {
    std::string detail = "HTTP " + std::to_string(response->status);
    if (body.is_object()) {
      if (auto code = core::StringAt(body, "error"); !code.empty()) detail = code;
      if (auto text = core::StringAt(body, "error_description"); !text.empty()) detail += ": " + text;
    }
    auto error = core::Error::NoCredentials(what + ": the token endpoint " + token_uri +
                                            " refused the credentials: " + core::Redact(detail));
    error.http_status = response->status;
    return core::Fail(std::move(error));
  }
  if (!body.is_object() || core::StringAt(body, "access_token").empty()) {
    return core::Fail(
        core::Error::NoCredentials(what + ": the token endpoint " + token_uri + " answered without an access_token"));
  }
  AccessToken token{core::StringAt(body, "access_token"), std::nullopt};
  Hold(secrets, token.token);
  if (auto it = body.find("expires_in"); it != body.end() && it->is_number()) {
    token.expiry = clock.WallNow() + std::chrono::seconds(it->get<long long>());
  }
  return token;
}

core::Result<std::unique_ptr<TokenSource>> ServiceAccountSource(const nlohmann::json& key, const std::string& path,
                                                                http::Transport& transport, core::Clock& clock,
                                                                core::Redactor* secrets) {
  if (auto ok = RequireFields(key, path, {"client_email", "private_key", "token_uri"}); !ok)
    return core::Fail(ok.error());
  std::string email = core::StringAt(key, "client_email");
  std::string private_key = core::StringAt(key, "private_key");
  std::string key_id = core::StringAt(key, "private_key_id");
  std::string token_uri = core::StringAt(key, "token_uri");
  Hold(secrets, private_key);
  Hold(secrets, key_id);
  // Sign once up front so that a key that cannot sign is reported as the file's problem now.
  if (auto signed_probe = SignRs256(private_key, "probe"); !signed_probe) {
    return core::Fail(
        core::Error::NoCredentials(path + ": malformed credentials file: " + signed_probe.error().message));
  }
  std::string what = "service account " + email + " (" + path + ")";
  auto fetch = [&transport, &clock, email, private_key, key_id, token_uri, what,
                secrets]() -> core::Result<AccessToken> {
    JwtClaims claims{email, std::string(kCloudPlatformScope), std::string(kGoogleTokenUri), clock.WallNow()};
    auto jwt = MakeSignedJwt(claims, private_key, key_id);
    if (!jwt) return core::Fail(jwt.error());
    Hold(secrets, *jwt);
    std::string form =
        "grant_type=" + http::UrlEncode("urn:ietf:params:oauth:grant-type:jwt-bearer") + "&assertion=" + *jwt;
    return ExchangeToken(transport, clock, token_uri, form, what, secrets);
  };
  return std::unique_ptr<TokenSource>(
      std::make_unique<CachingTokenSource>(CredentialInfo{"service_account", path, email}, fetch, clock));
}

core::Result<std::unique_ptr<TokenSource>> AuthorizedUserSource(const nlohmann::json& file, const std::string& path,
                                                                http::Transport& transport, core::Clock& clock,
                                                                core::Redactor* secrets) {
  if (auto ok = RequireFields(file, path, {"client_id", "client_secret", "refresh_token"}); !ok) {
    return core::Fail(ok.error());
  }
  Hold(secrets, core::StringAt(file, "client_secret"));
  Hold(secrets, core::StringAt(file, "refresh_token"));
  std::string token_uri = core::StringAt(file, "token_uri");
  if (token_uri.empty()) token_uri = std::string(kGoogleTokenUri);
  std::string form = "grant_type=refresh_token&client_id=" + http::UrlEncode(core::StringAt(file, "client_id")) +
                     "&client_secret=" + http::UrlEncode(core::StringAt(file, "client_secret")) +
                     "&refresh_token=" + http::UrlEncode(core::StringAt(file, "refresh_token"));
  std::string what = "user credentials (" + path + ")";
  auto fetch = [&transport, &clock, token_uri, form, what, secrets]() {
    return ExchangeToken(transport, clock, token_uri, form, what, secrets);
  };
  return std::unique_ptr<TokenSource>(std::make_unique<CachingTokenSource>(
      CredentialInfo{"authorized_user", path, core::StringAt(file, "account")}, fetch, clock));
}

}  // namespace tputrain::gcp::auth
