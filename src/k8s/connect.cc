#include "tputrain/k8s/connect.h"

namespace tputrain::k8s {

core::Result<std::unique_ptr<Connection>> Connect(const ClusterAccess& access, Credentials::Deps deps,
                                                  const TransportFactory& make_transport, http::CurlOptions base) {
  auto connection = std::make_unique<Connection>();
  connection->access = access;
  auto credentials = Credentials::Create(access, std::move(deps));
  if (!credentials) return core::Fail(credentials.error());
  connection->credentials = *credentials;
  auto tls = TlsFor(access, **credentials);
  base.ca_pem = tls.ca_pem;
  base.client_cert_pem = tls.client_cert_pem;
  base.client_key_pem = tls.client_key_pem;
  base.insecure_skip_tls_verify = access.insecure_skip_tls_verify;
  connection->tls = base;
  connection->transport = make_transport(base, *connection->credentials);
  connection->client = std::make_unique<Client>(*connection->transport, access.server, access.default_namespace);
  connection->discovery = std::make_unique<Discovery>(*connection->client);
  return connection;
}

}  // namespace tputrain::k8s
