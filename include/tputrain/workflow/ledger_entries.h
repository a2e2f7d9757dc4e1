#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/k8s/manifest.h"
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

// The same for callers that still hold the record as JSON (see state/access_record.h for its
// two forms). A record that does not parse gives "kubeconfig:" and is recorded as it is.
std::string AccessId(const nlohmann::json& access);
state::LedgerEntry K8sObjectEntry(const nlohmann::json& access, const k8s::Object& object, bool owned);

// kind "ray-job", name = the submission id; details {"address": URL} for a Ray reached
// directly, or {"raycluster", "namespace", "access"} for one behind the service proxy.
state::LedgerEntry RayJobEntry(const std::string& submission_id, const nlohmann::json& details);

// Where entries go: nothing is recorded when `store` is null.
struct LedgerRecorder {
  state::LedgerStore* store = nullptr;
  std::string run_id;

  core::Status Creating(const state::LedgerEntry& entry) const;
  core::Status Created(const state::LedgerEntry& entry) const;
};

}  // namespace tputrain::workflow
