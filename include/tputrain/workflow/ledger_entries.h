#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/gcp/tpu/types.h"
#include "tputrain/k8s/manifest.h"
#include "tputrain/serving/saxml.h"
#include "tputrain/state/access_record.h"
#include "tputrain/state/ledger.h"

// How Kubernetes objects and Ray jobs are named in the run ledger, so that `cleanup` can find
// the cluster again and delete them (CONTRACTS §2).
namespace tputrain::workflow {

// kind "k8s-object", name "<access.Id()>|<apiVersion>|<Kind>|<namespace>|<name>" (namespace
// empty for cluster-scoped objects); details name the object and carry ToJson(access).
state::LedgerEntry K8sObjectEntry(const state::AccessRecord& access, const k8s::Object& object, bool owned);

// The access record of a k8s-object or proxied ray-job entry (details["access"]), the field named
// "<kind> <name>: access" in errors.
core::Result<state::AccessRecord> AccessOf(const state::LedgerEntry& entry);

// Where a Ray job was submitted: a Ray reached directly at `address`, RayCluster `raycluster`
// in namespace `ns` behind the API server's service proxy of the cluster `access` names, or the
// Ray of a `tpu-vm create --ray` node reached through a tunnel opened again (`via` iap or ssh).
struct RayJobTarget {
  std::string address;
  std::string raycluster;
  std::string ns;
  state::AccessRecord access;
  gcp::tpu::NodeRef tpu_vm;
  std::string via;

  bool OnCluster() const { return !raycluster.empty(); }
  bool OnTpuVm() const { return !tpu_vm.node.empty(); }
  static RayJobTarget Direct(std::string address);
  static RayJobTarget OnRayCluster(std::string name, std::string ns, state::AccessRecord access);
  static RayJobTarget OnTpuVmRay(gcp::tpu::NodeRef node, std::string via);
};

// kind "ray-job", name = the submission id; details {"address": URL} for a Ray reached
// directly, {"raycluster", "namespace", "access"} for one behind the service proxy, or
// {"tpu_vm": {"project", "zone", "node"}, "via"} for a TPU VM's (a tunnel's loopback address
// would mean nothing to a later cleanup).
state::LedgerEntry RayJobEntry(const std::string& submission_id, const RayJobTarget& target);
// The target a ray-job entry records; a malformed record is one line naming the field.
core::Result<RayJobTarget> RayJobTargetOf(const state::LedgerEntry& entry);

// Where a Saxml model was published: sax-http's Service SERVICE:PORT in namespace `ns`, behind
// the service proxy of the cluster `access` names.
struct SaxHttpTarget {
  std::string ns;
  std::string service;
  int port = 0;
  state::AccessRecord access;
};

// kind "served-model", name "<access.Id()>|<namespace>|<service>:<port>|<model id>"; details
// {"engine": "saxml", "model", "model_path", "checkpoint", "replicas", "namespace", "service",
// "port", "access"}.
state::LedgerEntry ServedModelEntry(const serving::SaxModel& model, const SaxHttpTarget& target);
struct ServedModelRecord {
  serving::SaxModel model;
  SaxHttpTarget target;
};
// What a served-model entry records; a malformed record is one line naming the field.
core::Result<ServedModelRecord> ServedModelOf(const state::LedgerEntry& entry);

// Where entries go: nothing is recorded when `store` is null.
struct LedgerRecorder {
  state::LedgerStore* store = nullptr;
  std::string run_id;

  core::Status Creating(const state::LedgerEntry& entry) const;
  core::Status Created(const state::LedgerEntry& entry) const;
};

}  // namespace tputrain::workflow
