#include "gcp_stack.h"

#include "tputrain/gcp/auth/adc.h"
#include "tputrain/gcp/auth/metadata_server.h"
#include "tputrain/gcp/error_from_http.h"

namespace tputrain::cli {
namespace {

http::CurlOptions ApiCurlOptions(const core::Env& env) {
  http::CurlOptions options;
  options.ca_bundle = CaBundleFromEnv(env);
  return options;
}

http::CurlOptions MetadataCurlOptions(const core::Env& env) {
  http::CurlOptions options;
  options.connect_timeout = std::chrono::milliseconds(3000);  // google-auth's GCE_METADATA_TIMEOUT
  options.plain_http_host = gcp::auth::MetadataHost(env);
  return options;
}

}  // namespace

std::string CaBundleFromEnv(const core::Env& env) {
  if (auto file = env.Get("CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE")) return *file;
  return env.GetOr("REQUESTS_CA_BUNDLE", "");
}

GcpStack::GcpStack(Context& context)
    : sleeper_(context.cancel),
      endpoints_(gcp::Endpoints::FromEnv(context.env)),
      curl_(ApiCurlOptions(context.env)),
      metadata_curl_(MetadataCurlOptions(context.env)) {
  http::Transport* base = &curl_;
  http::Transport* metadata = &metadata_curl_;
  if (context.global.verbose || context.global.log_http) {
    logged_curl_.emplace(curl_, context.err, clock_, context.global.log_http);
    logged_metadata_.emplace(metadata_curl_, context.err, clock_, context.global.log_http);
    base = &*logged_curl_;
    metadata = &*logged_metadata_;
  }
  token_retrying_.emplace(*base, sleeper_, http::RetryPolicy{}, gcp::RetryDelayOf);
  metadata_retrying_.emplace(*metadata, sleeper_, http::RetryPolicy{.max_attempts = 3}, gcp::RetryDelayOf);
  api_retrying_.emplace(*base, sleeper_, http::RetryPolicy{}, gcp::RetryDelayOf);
}

core::Result<std::unique_ptr<GcpStack>> GcpStack::Create(Context& context) {
  std::unique_ptr<GcpStack> stack(new GcpStack(context));
  auto tokens = gcp::auth::DefaultCredentials(context.env, context.global.access_token_file,
                                              {&*stack->token_retrying_, &*stack->metadata_retrying_}, stack->clock_);
  if (!tokens) return core::Fail(tokens.error());
  stack->tokens_ = std::move(*tokens);
  stack->auth_.emplace(*stack->api_retrying_, *stack->tokens_);
  stack->api_ = &*stack->auth_;
  if (context.global.dry_run) {
    stack->dry_run_.emplace(*stack->auth_, context.out);
    stack->api_ = &*stack->dry_run_;
  }
  return stack;
}

}  // namespace tputrain::cli
