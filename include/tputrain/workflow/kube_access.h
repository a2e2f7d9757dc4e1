#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tputrain/core/result.h"
#include "tputrain/gcp/container/types.h"
#include "tputrain/k8s/connect.h"
#include "tputrain/k8s/service_proxy.h"
#include "tputrain/ray/jobs_client.h"
#include "tputrain/state/ledger.h"
#include "tputrain/workflow/apply_recorded.h"
#include "tputrain/workflow/cleanup.h"
#include "tputrain/workflow/ledger_entries.h"
#include "tputrain/workflow/root.h"

// How a command reaches a Kubernetes cluster (a GKE cluster by name, or a kubeconfig context),
// records what it applies there in the run ledger, and reaches a RayCluster's head through the
// API server's service proxy (`job ... --raycluster NAME`).
namespace tputrain::workflow {

// --cluster, --kubeconfig, --context, -n/--namespace, --insecure-skip-tls-verify, as typed.
struct KubeAccessFlags {
  std::string gke_cluster;                            // --cluster: a GKE cluster, found with the project and --location
  std::optional<gcp::container::ClusterRef> gke_ref;  // a GKE cluster already known in full (a ledger's)
  std::string kubeconfig;
  std::string context;
  std::string ns;
  bool insecure = false;
};

// A namespace as -n/--namespace takes it (it becomes a URL path segment); the message names no
// flag (the caller's parser does).
core::Status CheckNamespace(std::string_view ns);

// --cluster NAME with the configured project and location (a usage error names what is missing).
core::Result<gcp::container::ClusterRef> GkeClusterRef(Root& root, const KubeAccessFlags& flags);

// A GKE cluster named by --cluster, else the kubeconfig's context. Google tokens (for GKE and for
// kubeconfig entries that use gke-gcloud-auth-plugin) come from Application Default Credentials,
// fetched only when a request needs one.
core::Result<std::unique_ptr<k8s::Connection>> ConnectCluster(Root& root, const KubeAccessFlags& flags);

// Whether a command can reach a cluster without being told more: --cluster, --kubeconfig or
// --context named, or a kubeconfig file where kubectl looks (KUBECONFIG, ~/.kube/config).
bool ClusterAtHand(const Root& root, const KubeAccessFlags& access);

// How `cleanup` reaches this cluster again, for the run ledger: the GKE cluster, or the
// kubeconfig (an absolute path, or "" for the default lookup) and its context.
state::AccessRecord AccessRecordOf(Root& root, const KubeAccessFlags& flags, const k8s::Connection& connection);

// --run and --state-dir: the run ledger a command records in.
struct LedgerFlags {
  std::string run_id;
  std::string state_dir;
};

// The run ledger that applies on a cluster are recorded in: the store (none under a dry run,
// which records nothing), the run, and the access record of the cluster.
struct ApplyLedger {
  state::LedgerStore* store = nullptr;
  std::string run_id;
  state::AccessRecord access;
  LedgerRecorder recorder() const { return {store, run_id}; }
};
// The run the applies are recorded in, resolved before the cluster is reached (a ledger that
// cannot record refuses the command before any call); the caller sets `access` once connected.
core::Result<ApplyLedger> OpenApplyLedger(Root& root, const LedgerFlags& ledger, bool dry_run);

// A cluster reached for recorded applies: the run resolved first, then the connection, and the
// environment that records each object as it applies it.
struct RecordedApply {
  ApplyLedger ledger;
  std::unique_ptr<k8s::Connection> connection;
  RecordedApplyEnv env;
};
core::Result<std::unique_ptr<RecordedApply>> OpenRecordedApply(Root& root, const KubeAccessFlags& access,
                                                               const LedgerFlags& ledger, bool dry_run);
// The same once the run is resolved (OpenApplyLedger): the connection and the environment.
core::Result<std::unique_ptr<RecordedApply>> ConnectRecordedApply(Root& root, const KubeAccessFlags& access,
                                                                  ApplyLedger ledger);

// A cluster reached for recorded deletes: objects the run (--run, else the current one) holds in
// its ledger are marked deleted, so cleanup does not look for them again.
struct RecordedDelete {
  std::unique_ptr<k8s::Connection> connection;
  RecordedDeleteEnv env;
};
core::Result<std::unique_ptr<RecordedDelete>> OpenRecordedDelete(Root& root, const KubeAccessFlags& access,
                                                                 const LedgerFlags& ledger);
// The same on a connection made already.
RecordedDeleteEnv RecordedDeleteEnvOf(Root& root, const KubeAccessFlags& access, const k8s::Connection& connection,
                                      const LedgerFlags& ledger);

// The run serve down deletes from (--run, else TPUTRAIN_RUN, else the current one), which must
// have a ledger (CheckRecordedRun), resolved before the cluster is reached: `ledger` naming it.
core::Result<LedgerFlags> RecordedRunOf(Root& root, const LedgerFlags& ledger);

// --raycluster NAME and how its cluster is reached.
struct RayClusterFlags {
  std::string name;
  KubeAccessFlags access;
  // The same flags as a command line fragment ("--raycluster ray -n ml --kubeconfig ..."), for
  // hints that tell people how to come back to this Ray; `location` as --location gave it.
  std::string CommandLine(const std::string& location) const;
};

// The Ray Jobs API of RayCluster `flags.name`: its head through the API server's service proxy,
// on the cluster's transport stack (its CA, and its credential on every request and WebSocket
// upgrade, refreshed as it expires), with Ray's own headers (--header, RAY_JOB_HEADERS, a Ray
// token as X-Ray-Authorization).
core::Result<std::unique_ptr<RaySession>> ConnectRayCluster(Root& root, const RayClusterFlags& flags,
                                                            const ray::ConnectionFlags& ray_flags);
// The Ray client settings for a head behind `endpoint` (the proxy URL and Ray's headers).
core::Result<ray::ClientOptions> RayThroughProxy(Root& root, const ray::ConnectionFlags& ray_flags,
                                                 const k8s::ProxyEndpoint& endpoint);
// --address (else RAY_ADDRESS, else tputrain.yaml's ray_address) and --header; a usage error when
// no address is set anywhere.
core::Result<ray::ClientOptions> ResolveRayClient(Root& root, const ray::ConnectionFlags& flags);

// How cleanup reaches what the run ledger names outside Google's APIs, through `root`: the
// Kubernetes cluster of an access record (a GKE cluster, or a kubeconfig context), and the Ray
// Jobs API a job was submitted to (an address, a RayCluster behind the API server's proxy, or a
// TPU VM's head through IAP or ssh).
CleanupReach RecordedReach(Root& root);

}  // namespace tputrain::workflow
