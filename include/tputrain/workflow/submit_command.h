#pragma once

#include <optional>
#include <string>

#include "tputrain/core/result.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/submit_cluster.h"
#include "tputrain/workflow/submit_flow.h"
#include "tputrain/workflow/submit_reach.h"

// `tputrain submit`'s flags as typed, turned into the flow's request: which Ray the job goes to
// (--address, --tpu-vm, or a RayCluster the cluster flags name, one of them), its steps, and the
// RayCluster's wait, capacity and template values. A bad value or a conflict is one usage line
// naming the flags, before any connection.
namespace tputrain::workflow {

struct SubmitCommand {
  SubmitSpec spec;
  std::optional<std::string> steps;  // core::ParseCount's grammar, into spec.steps
  SubmitReach reach;
  bool wait = true;  // false: --no-wait
  bool dry_run = false;
  // With a cluster flag: the RayCluster tputrain applies and reuses.
  RayClusterRequest raycluster;
  std::string ready_timeout = "20m";
  std::string capacity = "on-demand";
  // The first cluster flag given (--kubeconfig, --raycluster, --ready-timeout, ...), empty when
  // none: given one, the job goes to a RayCluster.
  std::string cluster_flag;
  bool address_given = false;  // --address typed (not the RAY_ADDRESS default)

  // The request, checked; on a cluster, its RayCluster without the templates and configuration
  // values the root knows.
  core::Result<SubmitRequest> Request() const;
  // Request(), with the RayCluster's templates and configuration values (PROJECT_ID, BUCKET, ...)
  // from `root`, read only on a cluster.
  core::Result<SubmitRequest> Resolve(Root& root) const;
};

// Resolves `command`, connects as its reach says (through `root`, kept until the call returns),
// submits and, unless --no-wait, follows the job to its end. `callbacks` say what is shown.
core::Result<SubmitResult> Submit(Root& root, const SubmitCommand& command, SubmitCallbacks callbacks);

}  // namespace tputrain::workflow
