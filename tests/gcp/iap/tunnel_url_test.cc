#include "tputrain/gcp/iap/tunnel_url.h"

#include <catch2/catch.hpp>

namespace tputrain::gcp::iap {
namespace {

core::Env WithOverride(const std::string& url) {
  core::Env env;
  env.Set("TPUTRAIN_IAP_TUNNEL_URL", url);
  return env;
}

TEST_CASE("the connect URL is Google's relay's /v4/connect with every query value encoded") {
  TunnelTarget target{"my-project", "us-central2-b", "t1v-n-1&x=y", 8265, "nic0"};
  CHECK(ConnectUrl(kDefaultTunnelUrl, target) ==
        "wss://tunnel.cloudproxy.app/v4/connect?project=my-project&port=8265&newWebsocket=True&zone=us-central2-b"
        "&instance=t1v-n-1%26x%3Dy&interface=nic0");
}

TEST_CASE("the reconnect URL names the session and the bytes received") {
  CHECK(ReconnectUrl("wss://tunnel.cloudproxy.app", "s/1+", 123456, "europe-west4-a") ==
        "wss://tunnel.cloudproxy.app/v4/reconnect?sid=s%2F1%2B&ack=123456&newWebsocket=True&zone=europe-west4-a");
}

TEST_CASE("an override keeps /v4 unless it has a path of its own, as gcloud's --iap-tunnel-url-override") {
  TunnelTarget target{"p", "z", "i", 22, "nic0"};
  CHECK(ConnectUrl("wss://127.0.0.1:8443", target).starts_with("wss://127.0.0.1:8443/v4/connect?project=p&"));
  CHECK(ConnectUrl("wss://127.0.0.1:8443/", target).starts_with("wss://127.0.0.1:8443/v4/connect?"));
  CHECK(ConnectUrl("wss://relay.example/custom", target).starts_with("wss://relay.example/custom/connect?"));
  CHECK(ReconnectUrl("wss://relay.example/custom/", "s", 0, "z").starts_with("wss://relay.example/custom/reconnect?"));
}

TEST_CASE("TPUTRAIN_IAP_TUNNEL_URL overrides the relay; a bad one is a usage error naming it") {
  CHECK(*TunnelBaseUrlFromEnv(core::Env()) == "wss://tunnel.cloudproxy.app");
  CHECK(*TunnelBaseUrlFromEnv(WithOverride("wss://127.0.0.1:9443")) == "wss://127.0.0.1:9443");
  for (const char* bad : {"https://127.0.0.1:9443", "127.0.0.1:9443", "wss://", "wss://host/v4?x=1"}) {
    auto refused = TunnelBaseUrlFromEnv(WithOverride(bad));
    INFO(bad);
    REQUIRE_FALSE(refused);
    CHECK(core::IsUsageError(refused.error()));
    CHECK(refused.error().message.starts_with("TPUTRAIN_IAP_TUNNEL_URL: "));
  }
}

}  // namespace
}  // namespace tputrain::gcp::iap
