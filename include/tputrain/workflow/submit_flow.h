#pragma once

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tputrain/core/clock.h"
#include "tputrain/core/reporter.h"
#include "tputrain/core/result.h"
#include "tputrain/core/runtime.h"
#include "tputrain/workflow/ledger_entries.h"
#include "tputrain/workflow/submit.h"
#include "tputrain/workflow/submit_cluster.h"

// `tputrain submit` as one flow: the job built from the preset, then sent to a Ray reached
// directly (--address) or to a RayCluster tputrain applies on a Kubernetes cluster, recorded in
// the run ledger first, followed, and summed up. The caller (the composition root) supplies the
// connections; this decides what is made, when, and what is recorded.
namespace tputrain::workflow {

struct SubmitRequest {
  SubmitSpec spec;
  // Set: the job goes to this RayCluster (its name defaulted by DefaultRayClusterName).
  std::optional<RayClusterRequest> raycluster;
  bool wait = true;
  bool dry_run = false;  // build and show what would be sent; only discovery reads go out
};

// A Ray reached directly: its Jobs client, and how to follow a job there.
struct DirectRay {
  ray::JobsClient* client = nullptr;
  FollowFunction follow;
  // What the ledger records; unset: the client's address (a Ray reached without a tunnel).
  std::optional<RayJobTarget> record_as;
};

// A Kubernetes cluster to put the RayCluster on: its environment (the ledger is set by Submit)
// and how to follow a job through its proxy.
struct ClusterRay {
  ClusterSubmitEnv* env = nullptr;
  FollowFunction follow;
};

struct SubmitEnv : core::Runtime {
  std::function<core::Result<DirectRay>()> connect_direct;
  // Called with the RayCluster's name (for re-attach hints).
  std::function<core::Result<ClusterRay>(const std::string& raycluster)> connect_cluster;
  // The run ledger the job (and what is applied) is recorded in; not called under a dry run.
  std::function<core::Result<LedgerRecorder>()> open_ledger;
  // The image the current run's last `tputrain image build` pushed (IMAGE@sha256:...), or "":
  // the RayCluster's image when none is given. Reads the ledger only, also under a dry run.
  std::function<std::string()> last_built_image;
  SubmitCallbacks callbacks;  // on_submitted is wrapped: Submit reports the submission itself
};

struct SubmitResult {
  MaxTextJob job;
  // --dry-run: what would be sent (DescribeJob, or PlanOnCluster's applies, wait and requests).
  std::optional<nlohmann::json> plan;
  SubmitOutcome outcome;
  nlohmann::json json;  // the outcome for --format json: OutcomeToJson, plus "raycluster" on a cluster
};

// Builds the job (bad input is a usage error naming the flag, before any connection), connects,
// opens the ledger, submits and, with `wait`, follows the job to its end. A failure on a cluster
// says where the ledger records what was applied.
core::Result<SubmitResult> Submit(SubmitEnv& env, const SubmitRequest& request);

}  // namespace tputrain::workflow
