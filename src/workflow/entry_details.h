#pragma once

#include <string>

#include "tputrain/gcp/container/types.h"
#include "tputrain/gcp/tpu/types.h"
#include "tputrain/state/ledger.h"

// What a ledger entry's details say about where its resource lives: the keys each create
// records (project, location, cluster, nodepool, zone, node, queued_resource). Empty when absent.
namespace tputrain::workflow::internal {

inline std::string Detail(const state::LedgerEntry& entry, const char* key) {
  return entry.details.is_object() ? entry.details.value(key, "") : "";
}

inline gcp::container::ClusterRef ClusterOf(const state::LedgerEntry& entry) {
  return {Detail(entry, "project"), Detail(entry, "location"), Detail(entry, "cluster")};
}

inline gcp::container::NodePoolRef NodePoolOf(const state::LedgerEntry& entry) {
  return {ClusterOf(entry), Detail(entry, "nodepool")};
}

inline gcp::tpu::NodeRef TpuNodeOf(const state::LedgerEntry& entry) {
  return {Detail(entry, "project"), Detail(entry, "zone"), Detail(entry, "node")};
}

inline gcp::tpu::QueuedResourceRef QueuedResourceOf(const state::LedgerEntry& entry) {
  return {Detail(entry, "project"), Detail(entry, "zone"), Detail(entry, "queued_resource")};
}

}  // namespace tputrain::workflow::internal
