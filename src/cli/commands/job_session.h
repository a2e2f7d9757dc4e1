#pragma once

#include <memory>
#include <string>

#include "commands/job_submit.h"
#include "commands/k8s_access.h"
#include "commands/ray_common.h"

namespace tputrain::cli {

// The flags of `tputrain job VERB`: where the Ray head is, and what the verb takes.
struct JobOptions {
  ray::ConnectionFlags connection;
  RayClusterFlags raycluster;
  TpuVmRayTarget tpu_vm;
  JobSubmitFlags submit;
  std::string id;
  bool no_wait = false;
  bool follow = false;
  std::string timeout;  // job wait --timeout: core::ParseDuration's grammar, bare seconds too
};

// One session per process, so the version handshake happens once: through the RayCluster's
// API server, or at the address.
core::Result<std::unique_ptr<RaySession>> Connect(const JobOptions& options, Context& context);

// How to reach this Ray again: through the same RayCluster, or at the same address.
std::string ReattachFlags(const JobOptions& options, Context& context);

}  // namespace tputrain::cli
