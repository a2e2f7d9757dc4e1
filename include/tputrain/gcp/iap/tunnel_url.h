#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tputrain/core/env.h"
#include "tputrain/core/result.h"

namespace tputrain::gcp::iap {

inline constexpr char kDefaultTunnelUrl[] = "wss://tunnel.cloudproxy.app";
// Where tputrain reads gcloud's --iap-tunnel-url-override; its CA comes from the same variables as
// every other https call (CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE, then REQUESTS_CA_BUNDLE).
inline constexpr char kTunnelUrlVariable[] = "TPUTRAIN_IAP_TUNNEL_URL";

// A port on a Compute Engine instance's network interface ("instance mode" of IAP TCP forwarding;
// for a TPU VM worker, `instance` is its hostname guest attribute).
struct TunnelTarget {
  std::string project;
  std::string zone;
  std::string instance;
  int port = 0;
  std::string network_interface = "nic0";
};

// kDefaultTunnelUrl, or TPUTRAIN_IAP_TUNNEL_URL when set: a ws:// or wss:// URL with a host and no
// query, as gcloud takes its override; anything else is a usage error naming the variable.
core::Result<std::string> TunnelBaseUrlFromEnv(const core::Env& env);

// The URLs a session opens, from the base: its path replaces /v4 when it has one (as gcloud
// treats --iap-tunnel-url-override), and every query value is percent-encoded.
std::string ConnectUrl(std::string_view base_url, const TunnelTarget& target);
std::string ReconnectUrl(std::string_view base_url, std::string_view sid, uint64_t bytes_received,
                         std::string_view zone);

}  // namespace tputrain::gcp::iap
