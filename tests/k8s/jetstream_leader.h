#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "k8s/k8s_test_util.h"

namespace tputrain::testing {

// The LeaderWorkerSet controller and the kubelet, played, for a leader stuck on `waiting` (a
// named exception, see PLAYED.md: the kubelet's container states): the leader pod, Pending with its
// container waiting. The LeaderWorkerSet's status is not written.
inline void PlayWaitingLeader(k8s::Client& admin, const std::string& ns, const std::string& ip,
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
  WriteStatus(admin, "/api/v1/namespaces/" + ns + "/pods/" + pod,
              {{"phase", "Pending"},
               {"podIP", ip},
               {"podIPs", {{{"ip", ip}}}},
               {"containerStatuses",
                {{{"name", "jax-tpu"},
                  {"ready", false},
                  {"restartCount", 0},
                  {"image", "jetstream-pathways:v0.2.0"},
                  {"imageID", ""},
                  {"state", {{"waiting", waiting}}}}}}});
}

}  // namespace tputrain::testing
