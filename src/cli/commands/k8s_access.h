#pragma once

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "tputrain/cli/context.h"
#include "tputrain/core/clock.h"
#include "tputrain/http/curl_transport.h"
#include "tputrain/http/websocket.h"
#include "tputrain/k8s/connect.h"
#include "tputrain/ray/jobs_client.h"

// How commands reach a Kubernetes cluster: the kubeconfig flags, and the RayCluster route for
// `tputrain job ... --raycluster NAME` (the Ray dashboard through the API server's proxy).
namespace tputrain::cli {

struct KubeAccessFlags {
  std::string kubeconfig;
  std::string context;
  std::string ns;
  bool insecure = false;
};

// --kubeconfig, --context, -n/--namespace, --insecure-skip-tls-verify
void AddKubeAccessFlags(CLI::App& command, KubeAccessFlags& flags);

core::Result<std::unique_ptr<k8s::Connection>> ConnectCluster(const KubeAccessFlags& flags, Context& context,
                                                              core::Clock& clock);

struct RayClusterFlags {
  std::string name;  // --raycluster
  KubeAccessFlags access;
};

// --raycluster NAME plus the kubeconfig flags (--kubeconfig, --context, -n).
void AddRayClusterFlags(CLI::App& command, RayClusterFlags& flags);

// The Ray Jobs client settings for RayCluster `flags.name`: its head through the service
// proxy, with the Kubernetes credential in Authorization and Ray's own headers (--header,
// RAY_JOB_HEADERS, a Ray token as X-Ray-Authorization) added, and transports that trust the
// cluster's CA. `header_flags` are the job command's --header values.
struct RayClusterRoute {
  ray::ClientOptions client;
  http::CurlOptions curl;
  http::WebSocketOptions websocket;
};
core::Result<RayClusterRoute> ResolveRayClusterRoute(const RayClusterFlags& flags,
                                                     const ray::ConnectionFlags& ray_flags, Context& context);

}  // namespace tputrain::cli
