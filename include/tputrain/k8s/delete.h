#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/k8s/client.h"
#include "tputrain/k8s/discovery.h"
#include "tputrain/k8s/manifest.h"
#include "tputrain/k8s/watch.h"

namespace tputrain::k8s {

struct DeleteOptions {
  std::string ns;  // -n, as for apply
  bool dry_run = false;
  bool wait = true;                            // wait until each object is gone before deleting the next
  std::chrono::milliseconds timeout{300'000};  // per object
};

struct DeleteResult {
  Object object;
  bool existed = true;
};

// Deletes `objects` in the reverse of apply order (workloads first, then Services and
// ServiceAccounts, Namespaces, CRDs) with propagationPolicy=Foreground, waiting until each is
// gone (its dependents first) before the next. Objects already gone count as deleted.
core::Result<std::vector<DeleteResult>> Delete(Client& client, Discovery& discovery, std::vector<Object> objects,
                                               const DeleteOptions& options, WatchDeps deps,
                                               const std::function<void(const DeleteResult&)>& on_deleted = {});

}  // namespace tputrain::k8s
