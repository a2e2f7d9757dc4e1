#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "tputrain/core/clock.h"
#include "tputrain/core/result.h"

namespace tputrain::gcp::auth {

struct AccessToken {
  std::string token;
  std::optional<std::chrono::system_clock::time_point> expiry;  // none: valid until a 401
};

// Where a credential comes from and whose it is, for `tputrain auth status`. Never the secret.
struct CredentialInfo {
  std::string source;   // "access_token_file", "service_account", "authorized_user", "metadata_server"
  std::string origin;   // the file, or the metadata server's URL
  std::string account;  // e-mail when the source names one; may be looked up (metadata server)
};

// An OAuth2 access token for Google APIs, cached and refreshed transparently. Thread-safe.
class TokenSource {
 public:
  virtual ~TokenSource() = default;
  virtual core::Result<std::string> Token() = 0;
  // After a 401: the next Token() fetches a new one.
  virtual void Invalidate() = 0;
  virtual core::Result<CredentialInfo> Info() = 0;
};

// A token is used until this long before it expires (google-auth's refresh threshold), so a
// request never leaves with a token that dies in flight.
inline constexpr std::chrono::seconds kRefreshMargin{225};

// The one caching implementation: `fetch` does the source-specific exchange; `lookup_account`
// (optional) fills CredentialInfo::account on demand.
class CachingTokenSource final : public TokenSource {
 public:
  using Fetch = std::function<core::Result<AccessToken>()>;
  using AccountLookup = std::function<core::Result<std::string>()>;

  CachingTokenSource(CredentialInfo info, Fetch fetch, core::Clock& clock, AccountLookup lookup_account = {});

  core::Result<std::string> Token() override;
  void Invalidate() override;
  core::Result<CredentialInfo> Info() override;

 private:
  CredentialInfo info_;
  Fetch fetch_;
  core::Clock& clock_;
  AccountLookup lookup_account_;
  std::mutex mutex_;
  std::optional<AccessToken> cached_;
};

}  // namespace tputrain::gcp::auth
