#include "tputrain/k8s/service_proxy.h"

namespace tputrain::k8s {

std::string ServiceProxyUrl(const std::string& server, const std::string& ns, const std::string& service,
                            const std::string& port) {
  std::string base = server;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + "/api/v1/namespaces/" + http::PathSegment(ns) + "/services/" + http::PathSegment(service) + ":" +
         http::UrlEncode(port) + "/proxy/";
}

core::Result<ProxyEndpoint> RayHeadEndpoint(Client& client, const std::string& ns, const std::string& raycluster,
                                            const std::string& ray_token) {
  ProxyEndpoint endpoint{ServiceProxyUrl(client.server(), ns, raycluster + "-head-svc", "8265"), {}};
  if (!ray_token.empty()) endpoint.headers.emplace_back("X-Ray-Authorization", "Bearer " + ray_token);
  return endpoint;
}

}  // namespace tputrain::k8s
