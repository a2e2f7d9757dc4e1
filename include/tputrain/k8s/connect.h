#pragma once

#include <functional>
#include <memory>

#include "tputrain/core/result.h"
#include "tputrain/http/curl_transport.h"
#include "tputrain/http/transport.h"
#include "tputrain/k8s/client.h"
#include "tputrain/k8s/credentials.h"
#include "tputrain/k8s/discovery.h"
#include "tputrain/k8s/kubeconfig.h"

namespace tputrain::k8s {

// Makes the transport stack for one cluster: `tls` carries the cluster's CA and client
// certificate (and the caller's timeouts), `credential` the bearer token to add and refresh.
// The composition root (workflow::Root) adds logging, retries and dry-run; tests pass a bare one.
using TransportFactory =
    std::function<std::unique_ptr<http::Transport>(const http::CurlOptions& tls, http::Credential& credential)>;

// A client for one cluster with everything it owns: the transport stack built by the factory
// (trusting only the cluster's CA when the kubeconfig gives one), the credentials, and the
// discovery cache. `tls` is kept for the WebSocket connections made beside the transport.
struct Connection {
  ClusterAccess access;
  std::shared_ptr<Credentials> credentials;
  http::CurlOptions tls;
  std::unique_ptr<http::Transport> transport;
  std::unique_ptr<Client> client;
  std::unique_ptr<Discovery> discovery;
};

// `base` carries timeouts and the user agent; TLS material comes from `access`.
core::Result<std::unique_ptr<Connection>> Connect(const ClusterAccess& access, Credentials::Deps deps,
                                                  const TransportFactory& make_transport, http::CurlOptions base = {});

}  // namespace tputrain::k8s
