#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"

namespace tputrain::state {

// How the cluster of a Kubernetes ledger entry (a k8s-object, or a ray-job behind the API
// server's proxy) is reached again by a later `cleanup`. It is the entry's details["access"]:
//   {"gke_cluster": "projects/P/locations/L/clusters/C"}        a GKE cluster, credentials from ADC
//   {"kubeconfig": "/abs/path" or "", "context": "CTX"}          a kubeconfig context ("": the default
//                                                                 kubeconfig lookup)
struct AccessRecord {
  std::string gke_cluster;  // the GKE cluster's full name; empty for a kubeconfig context
  std::string kubeconfig;
  std::string context;

  static AccessRecord Gke(std::string cluster_name);
  static AccessRecord Kubeconfig(std::string path, std::string context);

  bool IsGke() const { return !gke_cluster.empty(); }
  // "gke:projects/P/locations/L/clusters/C" or "kubeconfig:CTX": the prefix of a k8s-object's
  // ledger name, and how cleanup groups objects by cluster.
  std::string Id() const;

  bool operator==(const AccessRecord&) const = default;
};

nlohmann::json ToJson(const AccessRecord& access);

// Reads an access record; `field` names it in errors ("entries[3].details.access"). A value
// of the wrong type is one line naming the field, kind kInvalidArgument.
core::Result<AccessRecord> AccessRecordFromJson(const nlohmann::json& json, std::string_view field = "access");

}  // namespace tputrain::state
