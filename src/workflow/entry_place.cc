#include "tputrain/workflow/entry_place.h"

#include <vector>

#include "entry_place_parts.h"
#include "tputrain/core/json_fields.h"
#include "tputrain/core/resource_name.h"

namespace tputrain::workflow {
namespace {

using state::ResourceKind;
using namespace entry_place_parts;

// The cluster an access record id names: a GKE cluster's name, or a kubeconfig's context.
std::string AccessName(const std::string& access_id) {
  if (access_id.rfind("gke:", 0) == 0) {
    const std::string cluster = core::SegmentAfter(access_id.substr(4), "clusters");
    return cluster.empty() ? access_id.substr(4) : cluster;
  }
  if (access_id.rfind("kubeconfig:", 0) == 0) return access_id.substr(11);
  return access_id;
}

std::string AccessNameOf(const nlohmann::json& details) {
  if (!details.is_object() || !details.contains("access")) return "";
  const auto& access = details["access"];
  if (std::string gke = core::StringAt(access, "gke_cluster"); !gke.empty()) return AccessName("gke:" + gke);
  return core::StringAt(access, "context");
}

// ACCESS|apiVersion|Kind|namespace|name: the access id may hold anything, the rest cannot hold '|'.
EntryPlace K8sObjectPlace(const std::string& key) {
  const auto fields = Split(key, '|');
  if (fields.size() < 5) return {key, "-"};
  const std::size_t n = fields.size();
  std::string access;
  for (std::size_t i = 0; i + 4 < n; ++i) access += (i == 0 ? "" : "|") + fields[i];
  const std::string& ns = fields[n - 2];
  return {fields[n - 3] + " " + (ns.empty() ? "" : ns + "/") + fields[n - 1], AccessName(access)};
}

// ACCESS|namespace|service:port|MODEL
EntryPlace ServedModelPlace(const std::string& key, const nlohmann::json& details) {
  const auto fields = Split(key, '|');
  std::string model = core::StringAt(details, "model");
  std::string where = AccessNameOf(details);
  if (fields.size() >= 4) {
    if (model.empty()) model = fields.back();
    if (where.empty()) where = AccessName(fields[0]);
  }
  return {model.empty() ? key : model, where.empty() ? "-" : where};
}

EntryPlace RayJobPlace(const std::string& key, const nlohmann::json& details) {
  std::string where = core::StringAt(details, "address");
  if (const auto scheme = where.find("://"); scheme != std::string::npos) where = where.substr(scheme + 3);
  if (where.empty() && details.is_object() && details.contains("tpu_vm"))
    where = core::StringAt(details["tpu_vm"], "node");
  if (where.empty()) where = AccessNameOf(details);
  return {key, where.empty() ? "-" : where};
}

EntryPlace PathPlace(ResourceKind kind, const std::string& key) {
  std::string name = core::LastSegment(key);
  if (kind == ResourceKind::kNodePool) {
    if (auto cluster = core::SegmentAfter(key, "clusters"); !cluster.empty()) name = cluster + "/" + name;
  }
  const std::string location = core::LocationOfName(key);
  return {name, location.empty() ? "-" : location};
}

}  // namespace

EntryPlace PlaceOf(ResourceKind kind, const std::string& key, const nlohmann::json& details,
                   std::string_view fallback) {
  EntryPlace place;
  switch (kind) {
    case ResourceKind::kCluster:
    case ResourceKind::kNodePool:
    case ResourceKind::kTpuVm:
    case ResourceKind::kQueuedResource:
    case ResourceKind::kRepository:
    case ResourceKind::kFirewallRule:
    case ResourceKind::kWorkloadPolicy:
      place = PathPlace(kind, key);
      break;
    case ResourceKind::kBucket: {
      const std::string location = core::StringAt(details, "location");
      place = {key.rfind("gs://", 0) == 0 ? key.substr(5) : key, location.empty() ? "-" : location};
      break;
    }
    case ResourceKind::kServiceAccount:
      place = {ShortEmail(key), "global"};
      break;
    case ResourceKind::kIamMember:
      place = IamMemberPlace(key, details);
      break;
    case ResourceKind::kK8sObject:
      place = K8sObjectPlace(key);
      break;
    case ResourceKind::kServedModel:
      place = ServedModelPlace(key, details);
      break;
    case ResourceKind::kRayJob:
      place = RayJobPlace(key, details);
      break;
    case ResourceKind::kBuild: {
      // The build is known by the image it pushes; its key is the uploaded source's gs:// URL.
      std::string image = core::StringAt(details, "image");
      if (image.empty()) image = std::string(fallback);
      const std::string location = core::StringAt(details, "location");
      place = {image.empty() ? key : core::LastSegment(image), location.empty() ? "-" : location};
      break;
    }
    case ResourceKind::kUnknown:
      place = {key, "-"};
      break;
  }
  if (place.name.empty()) place.name = key.empty() ? std::string(fallback) : key;
  return place;
}

}  // namespace tputrain::workflow
