#pragma once

#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "stack.h"
#include "tputrain/cli/context.h"
#include "tputrain/core/clock.h"
#include "tputrain/gcp/container/types.h"
#include "tputrain/http/websocket.h"
#include "tputrain/k8s/connect.h"
#include "tputrain/k8s/service_proxy.h"
#include "tputrain/ray/jobs_client.h"
#include "tputrain/state/ledger.h"
#include "tputrain/workflow/apply_recorded.h"
#include "tputrain/workflow/ledger_entries.h"

// How commands reach a Kubernetes cluster: the kubeconfig flags, and the RayCluster route for
// `tputrain job ... --raycluster NAME` (the Ray dashboard through the API server's proxy).
namespace tputrain::cli {

struct KubeAccessFlags {
  std::string gke_cluster;                            // --cluster: a GKE cluster, found with the project and --location
  std::optional<gcp::container::ClusterRef> gke_ref;  // a GKE cluster already known in full (a ledger's)
  std::string kubeconfig;
  std::string context;
  std::string ns;
  bool insecure = false;
};

// --cluster, --kubeconfig, --context, -n/--namespace, --insecure-skip-tls-verify
void AddKubeAccessFlags(CLI::App& command, KubeAccessFlags& flags);

// --cluster NAME with the configured project and location (a usage error names what is missing).
core::Result<gcp::container::ClusterRef> GkeClusterRef(const KubeAccessFlags& flags, Context& context);

// A GKE cluster named by --cluster, else the kubeconfig's context, through the Stack. Google
// tokens (for GKE and for kubeconfig entries that use gke-gcloud-auth-plugin) come from
// Application Default Credentials, fetched only when a request needs one.
core::Result<std::unique_ptr<k8s::Connection>> ConnectCluster(const KubeAccessFlags& flags, Context& context);
// The GKE cluster `ref`, reached as `get-credentials` would set kubectl up.
core::Result<std::unique_ptr<k8s::Connection>> ConnectGkeCluster(const gcp::container::ClusterRef& ref,
                                                                 const std::string& ns, Context& context);

// How `cleanup` reaches this cluster again, for the run ledger: the GKE cluster, or the
// kubeconfig (an absolute path, or "" for the default lookup) and its context.
state::AccessRecord AccessRecordOf(const KubeAccessFlags& flags, const k8s::Connection& connection, Context& context);

// The run ledger that applies on a cluster are recorded in: the store (none under a dry run,
// which records nothing), the run, and the access record of the cluster.
struct ApplyLedger {
  state::LedgerStore* store = nullptr;
  std::string run_id;
  state::AccessRecord access;
  workflow::LedgerRecorder recorder() const { return {store, run_id}; }
};
// The run the applies are recorded in, resolved before the cluster is reached (a ledger that
// cannot record refuses the command before any call); the caller sets `access` once connected.
core::Result<ApplyLedger> OpenApplyLedger(const std::string& run_flag, const std::string& state_dir, Context& context,
                                          bool dry_run);

// What recorded applies on `connection` run with: its client and discovery, the Stack's clock and
// the command's cancel token, recording into `ledger`.
// What recorded deletes on `connection` run with: objects the run (--run, else the current one)
// holds in its ledger are marked deleted, so cleanup does not look for them again.
workflow::RecordedDeleteEnv RecordedDeleteEnvOf(const KubeAccessFlags& flags, const k8s::Connection& connection,
                                                const std::string& run_flag, const std::string& state_dir,
                                                Context& context);

workflow::RecordedApplyEnv RecordedApplyEnvOf(const k8s::Connection& connection, const ApplyLedger& ledger,
                                              Context& context);

struct RayClusterFlags {
  std::string name;  // --raycluster
  KubeAccessFlags access;
};

// --raycluster NAME plus the kubeconfig flags (--kubeconfig, --context, -n).
void AddRayClusterFlags(CLI::App& command, RayClusterFlags& flags);

// The same flags as a command line fragment ("--raycluster ray -n ml --kubeconfig ..."), for
// hints that tell people how to come back to this Ray.
std::string RayClusterFlagsText(const RayClusterFlags& flags, const Context& context);

// The Ray Jobs API of RayCluster `flags.name`: its head through the API server's service proxy,
// on the cluster's transport stack (its CA, and its credential on every request and WebSocket
// upgrade, refreshed as it expires), with Ray's own headers (--header, RAY_JOB_HEADERS, a Ray
// token as X-Ray-Authorization).
core::Result<std::unique_ptr<RaySession>> ConnectRayCluster(const RayClusterFlags& flags,
                                                            const ray::ConnectionFlags& ray_flags, Context& context);
// The Ray client settings for a head behind `endpoint` (the proxy URL and Ray's headers).
core::Result<ray::ClientOptions> RayThroughProxy(const ray::ConnectionFlags& ray_flags,
                                                 const k8s::ProxyEndpoint& endpoint, Context& context);

}  // namespace tputrain::cli
