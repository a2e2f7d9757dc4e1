// The Root's Google side: the API chain with Application Default Credentials, the IAP relay's
// connector, and where TPU prices are read.
#include "google_chain.h"
#include "tputrain/gcp/auth/adc.h"
#include "tputrain/gcp/auth/metadata_server.h"
#include "tputrain/gcp/billing/client.h"
#include "tputrain/gcp/names.h"
#include "tputrain/workflow/prices.h"

namespace tputrain::workflow {

core::Result<http::Transport*> Root::Google() {
  std::lock_guard lock(google_mutex_);
  if (google_) return google_->api.get();
  if (auto valid = gcp::CheckEndpointOverrides(options_.env); !valid) return core::Fail(valid.error());
  http::Headers api_headers;
  auto settings = options_.settings();
  if (!settings) return core::Fail(settings.error());
  if (auto quota = settings->Get("quota_project"); quota && !quota->empty()) {
    const std::string field = settings->Lookup("quota_project").FieldName("quota_project");
    if (auto valid = gcp::CheckProjectId(field, *quota); !valid) return core::Fail(valid.error());
    api_headers.emplace_back("x-goog-user-project", *quota);  // as gcloud sends it
  }
  auto google = std::make_unique<GoogleChain>();
  const http::RetryPolicy default_retries;
  const http::RetryPolicy metadata_retries{.max_attempts = 3};
  google->token_endpoints = Chain({}, nullptr, &default_retries, false);
  http::CurlOptions metadata;
  metadata.connect_timeout = std::chrono::milliseconds(3000);  // google-auth's GCE_METADATA_TIMEOUT
  metadata.plain_http_host = gcp::auth::MetadataHost(options_.env);
  google->metadata = Chain(std::move(metadata), nullptr, &metadata_retries, false);
  core::Timeline::Span adc(options_.timeline, "adc");
  auto tokens = gcp::auth::DefaultCredentials(
      options_.env, options_.access_token_file,
      {google->token_endpoints.get(), google->metadata.get(), &options_.redactor}, leaves_.clock());
  adc.End();
  if (!tokens) return core::Fail(tokens.error());
  google->tokens = std::move(*tokens);
  google->credential = std::make_unique<gcp::auth::TokenCredential>(*google->tokens);
  google->api_headers = api_headers;
  google->api = Chain({}, google->credential.get(), &default_retries, options_.dry_run, std::move(api_headers));
  google_ = std::move(google);
  return google_->api.get();
}

core::Result<gcp::auth::TokenSource*> Root::GoogleTokens() {
  auto google = Google();
  if (!google) return core::Fail(google.error());
  return google_->tokens.get();
}

core::Result<Root::GoogleWebSocket> Root::GoogleRelay() {
  auto google = Google();
  if (!google) return core::Fail(google.error());
  return GoogleWebSocket{WebSocket({}, google_->credential.get()), google_->credential.get()};
}

core::Result<PriceSource> Root::Prices() {
  PriceSource source;
  source.billing_url = endpoints_.cloudbilling;
  source.refresh = options_.refresh_prices;
  source.cache_path = DefaultPriceCachePath(options_.env);
  std::string field = "--billing-api-key";
  source.api_key = options_.billing_api_key;
  if (source.api_key.empty()) {
    source.api_key = options_.env.GetOr("TPUTRAIN_BILLING_API_KEY", "");
    field = "TPUTRAIN_BILLING_API_KEY";
  }
  if (!source.api_key.empty()) {
    if (auto valid = gcp::billing::CheckApiKey(field, source.api_key); !valid) return core::Fail(valid.error());
    options_.redactor.Hold(source.api_key);
  }
  if (auto valid = gcp::CheckEndpointOverrides(options_.env); !valid) return core::Fail(valid.error());
  // One retry: a catalog that cannot be read is a notice and the built-in table, not a long wait.
  static const http::RetryPolicy kBillingRetries{.max_attempts = 2, .initial_backoff = std::chrono::milliseconds(500)};
  if (!billing_) {
    http::Credential* credential = nullptr;
    http::Headers headers;
    if (source.api_key.empty()) {
      auto google = Google();
      if (!google) {
        source.unavailable = "no Google credentials: " + google.error().message;
        return source;
      }
      credential = google_->credential.get();
      headers = google_->api_headers;
    }
    billing_ = Chain({}, credential, &kBillingRetries, false, std::move(headers));
  }
  source.transport = billing_.get();
  return source;
}

}  // namespace tputrain::workflow
