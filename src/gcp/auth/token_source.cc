#include "tputrain/gcp/auth/token_source.h"

namespace tputrain::gcp::auth {

CachingTokenSource::CachingTokenSource(CredentialInfo info, Fetch fetch, core::Clock& clock,
                                       AccountLookup lookup_account)
    : info_(std::move(info)), fetch_(std::move(fetch)), clock_(clock), lookup_account_(std::move(lookup_account)) {}

core::Result<std::string> CachingTokenSource::Token() {
  // One fetch at a time: parallel creates that all find the cache stale share one exchange.
  std::lock_guard lock(mutex_);
  if (cached_ && (!cached_->expiry || clock_.WallNow() + kRefreshMargin < *cached_->expiry)) return cached_->token;
  auto fresh = fetch_();
  if (!fresh) return core::Fail(fresh.error());
  cached_ = std::move(*fresh);
  return cached_->token;
}

void CachingTokenSource::Invalidate() {
  std::lock_guard lock(mutex_);
  cached_.reset();
}

core::Result<CredentialInfo> CachingTokenSource::Info() {
  std::lock_guard lock(mutex_);
  if (info_.account.empty() && lookup_account_) {
    auto account = lookup_account_();
    if (!account) return core::Fail(account.error());
    info_.account = *account;
  }
  return info_;
}

}  // namespace tputrain::gcp::auth
