#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "k8s/apiserver_fixture.h"
#include "k8s/control_plane.h"
#include "testing/bare_transport.h"
#include "tputrain/core/clock.h"
#include "tputrain/k8s/apply.h"
#include "tputrain/k8s/connect.h"
#include "tputrain/k8s/manifest.h"

namespace tputrain::testing {

// A connection built the way the CLI builds it: from kubeconfig text.
inline std::unique_ptr<k8s::Connection> ConnectWith(const std::string& kubeconfig_text,
                                                    k8s::GoogleTokenSource google = {}) {
  static core::Env env;
  static core::SystemClock clock;
  auto access = k8s::ClusterAccessFromKubeconfigText(kubeconfig_text, "", {});
  if (!access) throw std::runtime_error(access.error().message);
  auto connection = k8s::Connect(*access, {&env, &clock, std::move(google)}, BareTransport);
  if (!connection) throw std::runtime_error(connection.error().message);
  return std::move(*connection);
}

inline std::vector<k8s::Object> Parse(const std::string& yaml) {
  auto objects = k8s::ParseManifests(yaml, "test.yaml");
  if (!objects) throw std::runtime_error(objects.error().message);
  return *objects;
}

struct RealTime {
  core::SystemClock clock;
  core::RealSleeper sleeper;
  k8s::WatchDeps deps() { return {clock, sleeper, nullptr}; }
};

inline core::Result<std::vector<k8s::ApplyResult>> ApplyYaml(k8s::Connection& connection, const std::string& yaml,
                                                             k8s::ApplyOptions options = {}) {
  RealTime time;
  return k8s::Apply(*connection.client, *connection.discovery, Parse(yaml), options, time.deps());
}

inline std::string RayClusterYaml(const std::string& name, const std::string& ns,
                                  const std::string& start_params = "{}") {
  return "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata:\n  name: " + name + "\n  namespace: " + ns +
         "\nspec:\n  headGroupSpec:\n    rayStartParams: " + start_params +
         "\n    template:\n      spec:\n        containers:\n        - name: ray-head\n"
         "          image: rayproject/ray:2.60.0\n";
}

// Writes `status` through the /status subresource, as an operator would.
inline void WriteStatus(k8s::Client& admin, const std::string& object_path, const nlohmann::json& status) {
  auto response = admin.Send("PATCH", object_path + "/status", nlohmann::json{{"status", status}}.dump(),
                             "application/merge-patch+json");
  if (!response || !response->ok()) {
    throw std::runtime_error("status write failed: " + (response ? response->body : response.error().message));
  }
}

inline void CreateObject(k8s::Client& admin, const std::string& path, const nlohmann::json& body) {
  auto response = admin.Send("POST", path, body.dump());
  if (!response || !response->ok()) {
    throw std::runtime_error("POST " + path + " failed: " + (response ? response->body : response.error().message));
  }
}

// The shape of LeaderWorkerSet's release manifest: its CRD, the namespace `ns`, an account and
// the controller Deployment (whose availability the control plane brings about).
inline std::string LwsManifest(const std::string& ns) {
  return ReadTextFile(std::string(TPUTRAIN_SOURCE_DIR) + "/data/crds/leaderworkerset.x-k8s.io_leaderworkersets.yaml") +
         "\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + ns +
         "\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: lws-controller-manager\n  namespace: " + ns +
         "\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: lws-controller-manager\n  namespace: " + ns +
         "\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      control-plane: controller-manager\n"
         "  template:\n    metadata:\n      labels:\n        control-plane: controller-manager\n    spec:\n"
         "      serviceAccountName: lws-controller-manager\n      containers:\n      - name: manager\n"
         "        image: registry.k8s.io/lws/lws:v0.10.0\n";
}

// Waits until the endpoints controller lists `ip` behind Service `service`.
inline void WaitEndpoint(k8s::Client& admin, const std::string& ns, const std::string& service, const std::string& ip) {
  bool listed = WaitFor(
      [&] {
        auto endpoints = admin.GetJson("/api/v1/namespaces/" + ns + "/endpoints/" + service, "");
        return endpoints && endpoints->dump().find("\"" + ip + "\"") != std::string::npos;
      },
      std::chrono::seconds(60));
  if (!listed) throw std::runtime_error("Service " + ns + "/" + service + " never listed " + ip);
}

// RayCluster `name` (head only) made by the real KubeRay, its head pod served at `ip` (a real Ray
// head in a network namespace): kwok reports the pod Running there, and the endpoints controller
// lists it behind KubeRay's NAME-head-svc, so the API server's service proxy reaches the head.
inline void RunRayClusterAt(ControlPlane& plane, const std::string& ns, const std::string& name,
                            const std::string& ip) {
  auto& admin = plane.server().admin();
  auto connection = ConnectWith(plane.server().KubeconfigText(plane.server().admin_token(), ns));
  auto applied = ApplyYaml(*connection, RayClusterYaml(name, ns));
  if (!applied) throw std::runtime_error("applying RayCluster " + name + ": " + applied.error().message);
  plane.ServePodAt(ns, plane.WaitScheduledPod(ns, "ray.io/cluster=" + name + ",ray.io/node-type=head"), ip);
  WaitEndpoint(admin, ns, name + "-head-svc", ip);
}

}  // namespace tputrain::testing
