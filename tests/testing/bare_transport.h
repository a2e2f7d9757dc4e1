#pragma once

#include <memory>

#include "tputrain/http/credential.h"
#include "tputrain/http/curl_transport.h"
#include "tputrain/http/transport_chain.h"

namespace tputrain::testing {

// The smallest transport stack a Kubernetes connection works with (a k8s::TransportFactory):
// curl with the cluster's TLS, and the credential added and refreshed on 401. None of the CLI's
// logging, retries or dry-run, so tests see the API server's replies as they come.
inline std::unique_ptr<http::Transport> BareTransport(const http::CurlOptions& tls, http::Credential& credential) {
  auto chain = std::make_unique<http::TransportChain>();
  chain->Push<http::CurlTransport>(tls);
  chain->Push<http::CredentialTransport>(chain->top(), credential);
  return chain;
}

}  // namespace tputrain::testing
