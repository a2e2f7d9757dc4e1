#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "k8s/k8s_test_util.h"

namespace tputrain::testing {

// The LeaderWorkerSet controller and the kubelet, played: the leader pod (Ready, or stuck on
// `waiting`), the Service's Endpoints (to the JetStream namespace), the LWS's Available condition.
inline void PlayLeader(k8s::Client& admin, const std::string& ns, const std::string& ip,
                       const nlohmann::json& waiting) {
  const std::string pod = "jetstream-pathways-0";
  CreateObject(admin, "/api/v1/namespaces/" + ns + "/pods",
               {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata",
                 {{"name", pod},
                  {"labels",
                   {{"leaderworkerset.sigs.k8s.io/name", "jetstream-pathways"},
                    {"leaderworkerset.sigs.k8s.io/worker-index", "0"},
                    {"app", "jetstream-pathways"}}}}},
                {"spec", {{"containers", {{{"name", "jax-tpu"}, {"image", "jetstream-pathways:v0.2.0"}}}}}}});
  nlohmann::json status = {
      {"phase", waiting.is_null() ? "Running" : "Pending"}, {"podIP", ip}, {"podIPs", {{{"ip", ip}}}}};
  if (waiting.is_null()) {
    status["conditions"] = {{{"type", "Ready"}, {"status", "True"}}};
  } else {
    status["containerStatuses"] = {{{"name", "jax-tpu"},
                                    {"ready", false},
                                    {"restartCount", 0},
                                    {"image", "jetstream-pathways:v0.2.0"},
                                    {"imageID", ""},
                                    {"state", {{"waiting", waiting}}}}};
  }
  WriteStatus(admin, "/api/v1/namespaces/" + ns + "/pods/" + pod, status);
  if (!waiting.is_null()) return;
  PlayEndpoints(admin, ns, "jetstream-svc", {"jetstream-http", 8000}, ip, pod);
  WriteStatus(admin, "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns + "/leaderworkersets/jetstream-pathways",
              {{"conditions",
                {{{"type", "Available"},
                  {"status", "True"},
                  {"reason", "AllGroupsReady"},
                  {"message", "All replicas are ready"},
                  {"lastTransitionTime", "2026-11-24T06:00:00Z"}}}},
               {"readyReplicas", 1},
               {"replicas", 1}});
}

}  // namespace tputrain::testing
