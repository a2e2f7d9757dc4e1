#pragma once

#include <memory>

#include "tputrain/core/result.h"
#include "tputrain/http/curl_transport.h"
#include "tputrain/k8s/client.h"
#include "tputrain/k8s/credentials.h"
#include "tputrain/k8s/discovery.h"
#include "tputrain/k8s/kubeconfig.h"

namespace tputrain::k8s {

// A client for one cluster with everything it owns: a CurlTransport that trusts the cluster's
// CA (only it, when the kubeconfig gives one) and presents its client certificate, the
// credentials, and the discovery cache.
struct Connection {
  ClusterAccess access;
  std::shared_ptr<Credentials> credentials;
  std::unique_ptr<http::CurlTransport> transport;
  std::unique_ptr<Client> client;
  std::unique_ptr<Discovery> discovery;
};

// `base` carries timeouts and the user agent; TLS material comes from `access`.
core::Result<std::unique_ptr<Connection>> Connect(const ClusterAccess& access, Credentials::Deps deps,
                                                  http::CurlOptions base = {});

}  // namespace tputrain::k8s
