#pragma once

#include <string>

#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"
#include "tputrain/k8s/client.h"

namespace tputrain::k8s {

// The API server's service proxy for one Service port:
// https://SERVER/api/v1/namespaces/NS/services/SERVICE:PORT/proxy/ (trailing slash kept: the
// server joins the rest of the path to it).
std::string ServiceProxyUrl(const std::string& server, const std::string& ns, const std::string& service,
                            const std::string& port);

// Where to reach a RayCluster's dashboard (the NAME-head-svc Service, port 8265) through the
// proxy: a base URL for the Ray Jobs client and the headers it must send. The Kubernetes
// credential is not among them: the cluster's transport stack adds it to every request and
// WebSocket upgrade (the API server strips it before proxying), fresh each time; a Ray token, if
// any, travels as X-Ray-Authorization.
struct ProxyEndpoint {
  std::string base_url;
  http::Headers headers;
};
core::Result<ProxyEndpoint> RayHeadEndpoint(Client& client, const std::string& ns, const std::string& raycluster,
                                            const std::string& ray_token = "");

}  // namespace tputrain::k8s
