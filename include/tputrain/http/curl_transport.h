#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tputrain/core/timeline.h"
#include "tputrain/http/transport.h"

namespace tputrain::http {

struct CurlOptions {
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds total_timeout{120'000};  // per request, unless the Request says
  std::string user_agent;                            // default "tputrain/<version>"
  std::string ca_bundle;                             // extra CA file; empty: the system store
  // A cluster's own CA (PEM): when set, only it is trusted (as kubectl trusts a kubeconfig's CA).
  std::string ca_pem;
  // A client certificate and key (PEM) for servers that authenticate by certificate.
  std::string client_cert_pem;
  std::string client_key_pem;
  // Only when the user asked for it explicitly (kubeconfig insecure-skip-tls-verify + flag).
  bool insecure_skip_tls_verify = false;
  // Plain http is refused except to loopback, so that no token ever crosses a network in clear.
  bool allow_plain_http_to_loopback = true;
  // The metadata server only: plain http to this one host (link-local, never routed), with no
  // proxy, as google-auth reaches it. Empty for every other transport.
  std::string plain_http_host;
  // Request::max_response_bytes when a request leaves it 0: every JSON answer tputrain reads
  // whole is far smaller (core::ParseJson refuses more than 64 MiB anyway).
  size_t max_response_bytes = 64 * 1024 * 1024;
  // Where each request's phases go (waiting for libcurl, connect, TLS, first byte), when the
  // user asked for them (TPUTRAIN_PHASES); null: nowhere.
  core::Timeline* timeline = nullptr;
};

// The one real Transport. Keeps a pool of easy handles so that connections are reused across
// calls and across threads (creates run in parallel). Proxies come from curl's own variables.
// libcurl is opened on the first request (src/http/curl_library.h), not when this is built.
class CurlTransport final : public Transport {
 public:
  explicit CurlTransport(CurlOptions options = {});
  ~CurlTransport() override;

  core::Result<Response> Send(const Request& request) override;
  core::Result<Response> Stream(const Request& request, const ChunkHandler& on_chunk) override;

 private:
  core::Result<Response> Perform(const Request& request, const ChunkHandler* on_chunk);
  void* TakeIdle();  // an idle easy handle, or nullptr when there is none
  void Release(void* handle);

  CurlOptions options_;
  std::mutex mutex_;
  std::vector<void*> idle_handles_;
};

// Refuses http:// to anything but a loopback host (or `plain_http_host`), and any scheme but
// http(s).
core::Status CheckUrlAllowed(const std::string& url, const std::string& plain_http_host = "");

}  // namespace tputrain::http
