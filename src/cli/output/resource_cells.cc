#include "output/resource_cells.h"

#include "output/cell_parts.h"
#include "output/iam_member_cells.h"
#include "tputrain/core/json_fields.h"
#include "tputrain/core/resource_name.h"

#include <vector>

namespace tputrain::cli {
namespace {

using state::ResourceKind;
using namespace cell_parts;

// The cluster an access record id names: a GKE cluster's name, or a kubeconfig's context.
std::string AccessCell(const std::string& access_id) {
  if (access_id.rfind("gke:", 0) == 0) {
    const std::string cluster = core::SegmentAfter(access_id.substr(4), "clusters");
    return cluster.empty() ? access_id.substr(4) : cluster;
  }
  if (access_id.rfind("kubeconfig:", 0) == 0) return access_id.substr(11);
  return access_id;
}

std::string AccessCellOf(const nlohmann::json& details) {
  if (!details.is_object() || !details.contains("access")) return "";
  const auto& access = details["access"];
  if (std::string gke = core::StringAt(access, "gke_cluster"); !gke.empty()) return AccessCell("gke:" + gke);
  return core::StringAt(access, "context");
}

// ACCESS|apiVersion|Kind|namespace|name: the access id may hold anything, the rest cannot hold '|'.
ResourceCells K8sObjectCells(const std::string& key) {
  const auto fields = Split(key, '|');
  if (fields.size() < 5) return {key, "-"};
  const std::size_t n = fields.size();
  std::string access;
  for (std::size_t i = 0; i + 4 < n; ++i) access += (i == 0 ? "" : "|") + fields[i];
  const std::string& ns = fields[n - 2];
  return {fields[n - 3] + " " + (ns.empty() ? "" : ns + "/") + fields[n - 1], AccessCell(access)};
}

// ACCESS|namespace|service:port|MODEL
ResourceCells ServedModelCells(const std::string& key, const nlohmann::json& details) {
  const auto fields = Split(key, '|');
  std::string model = core::StringAt(details, "model");
  std::string where = AccessCellOf(details);
  if (fields.size() >= 4) {
    if (model.empty()) model = fields.back();
    if (where.empty()) where = AccessCell(fields[0]);
  }
  return {model.empty() ? key : model, where.empty() ? "-" : where};
}

ResourceCells RayJobCells(const std::string& key, const nlohmann::json& details) {
  std::string where = core::StringAt(details, "address");
  if (const auto scheme = where.find("://"); scheme != std::string::npos) where = where.substr(scheme + 3);
  if (where.empty() && details.is_object() && details.contains("tpu_vm"))
    where = core::StringAt(details["tpu_vm"], "node");
  if (where.empty()) where = AccessCellOf(details);
  return {key, where.empty() ? "-" : where};
}

ResourceCells PathCells(ResourceKind kind, const std::string& key) {
  std::string name = core::LastSegment(key);
  if (kind == ResourceKind::kNodePool) {
    if (auto cluster = core::SegmentAfter(key, "clusters"); !cluster.empty()) name = cluster + "/" + name;
  }
  const std::string location = core::LocationOfName(key);
  return {name, location.empty() ? "-" : location};
}

}  // namespace

ResourceCells CellsOf(ResourceKind kind, const std::string& key, const nlohmann::json& details, bool wide,
                      std::string_view fallback) {
  ResourceCells cells;
  switch (kind) {
    case ResourceKind::kCluster:
    case ResourceKind::kNodePool:
    case ResourceKind::kTpuVm:
    case ResourceKind::kQueuedResource:
    case ResourceKind::kRepository:
    case ResourceKind::kFirewallRule:
    case ResourceKind::kWorkloadPolicy:
      cells = PathCells(kind, key);
      break;
    case ResourceKind::kBucket: {
      const std::string location = core::StringAt(details, "location");
      cells = {key.rfind("gs://", 0) == 0 ? key.substr(5) : key, location.empty() ? "-" : location};
      break;
    }
    case ResourceKind::kServiceAccount:
      cells = {ShortEmail(key), "global"};
      break;
    case ResourceKind::kIamMember:
      cells = IamMemberCells(key, details);
      break;
    case ResourceKind::kK8sObject:
      cells = K8sObjectCells(key);
      break;
    case ResourceKind::kServedModel:
      cells = ServedModelCells(key, details);
      break;
    case ResourceKind::kRayJob:
      cells = RayJobCells(key, details);
      break;
    case ResourceKind::kBuild: {
      // The build is known by the image it pushes; its key is the uploaded source's gs:// URL.
      std::string image = core::StringAt(details, "image");
      if (image.empty()) image = std::string(fallback);
      const std::string location = core::StringAt(details, "location");
      cells = {image.empty() ? key : core::LastSegment(image), location.empty() ? "-" : location};
      break;
    }
    case ResourceKind::kUnknown:
      cells = {key, "-"};
      break;
  }
  if (cells.name.empty()) cells.name = key.empty() ? std::string(fallback) : key;
  if (wide && !key.empty()) cells.name = key;
  return cells;
}

std::string OperationCell(const std::string& operation, bool wide) {
  if (wide) return operation;
  return core::LastSegment(operation);
}

std::vector<std::vector<std::string>> OutcomeRows(const std::vector<workflow::Outcome>& outcomes, bool wide) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& outcome : outcomes) {
    auto cells = CellsOf(outcome.kind, outcome.resource.empty() ? outcome.name : outcome.resource, outcome.details,
                         wide, outcome.name);
    rows.push_back({std::string(state::KindName(outcome.kind)), cells.name, cells.location,
                    std::string(workflow::OutcomeActionPhrase(outcome.action))});
  }
  return rows;
}

}  // namespace tputrain::cli
