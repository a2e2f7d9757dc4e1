#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"
#include "tputrain/workflow/image_build.h"
#include "tputrain/workflow/kube_access.h"
#include "tputrain/workflow/provision.h"
#include "tputrain/workflow/provision_requests.h"
#include "tputrain/workflow/tpu_vm_create.h"

// The provisioning commands (cluster, nodepool, registry, bucket, tpu-vm create and delete, iam,
// image build) as one flow: the request as typed -> PlanProvision (every check, the project and
// location from the settings, a delete's question) -> the caller asks it -> Provision (the run
// and its ledger first, --dry-run, --enable-apis, the waits, the hints that say how to go on).
namespace tputrain::workflow {

class Root;

// The flags every provisioning command shares, as typed.
struct ProvisionRunFlags {
  std::string run_id;     // --run, else TPUTRAIN_RUN, else the current run
  std::string state_dir;  // --state-dir
  bool async = false;
  std::string timeout;  // core::ParseDuration's grammar; empty: no limit
  bool recreate_unusable = false;
  bool enable_apis = false;
  std::string ttl;  // --ttl: the tputrain-expires label, now + this
};

// Deletes, by the names given (checked by PlanProvision).
struct ClusterDeletion {
  std::string name;
};
struct NodePoolDeletion {
  std::string cluster;
  std::string name;
};
struct RepositoryDeletion {
  std::string name;
};
struct BucketDeletion {
  std::string name;  // NAME or gs://NAME
  bool force = false;
};
struct TpuVmDeletion {
  std::vector<std::string> names;
};

// Creates whose requests need more than their own type says.
struct NodePoolCreation {
  std::string cluster;  // --cluster, in the configured project and location
  std::string name;
  TpuPoolRequest pool;
  FailoverFlags failover;
};
struct TpuVmCreation {
  TpuVmCreateRequest request;  // project and zone from the settings unless --zones
  std::string location_flag;   // --location as given: the zone --zones replaces
};
struct WorkloadIdentityBinding {
  WorkloadIdentityRequest request;
  KubeAccessFlags access;  // where the KSA lives, for --annotate-ksa
};
struct ImageBuilding {
  ImageBuildFlags flags;                         // project and location from the settings
  std::function<void(std::string_view)> on_log;  // the build's log as it comes; null: not shown
};

// What a provisioning command does. The create requests carry no project or location: those
// come from the settings.
using ProvisionAction =
    std::variant<ClusterCreateRequest, ClusterDeletion, NodePoolCreation, NodePoolDeletion, RepositoryCreateRequest,
                 RepositoryDeletion, BucketCreateRequest, BucketDeletion, TpuVmCreation, TpuVmDeletion,
                 ServiceAccountCreateRequest, WorkloadIdentityBinding, ImageBuilding>;

// A checked action, ready to run.
struct ProvisionPlan {
  std::string question;            // a delete's y/N question; empty for creates
  std::vector<std::string> notes;  // to say before anything is sent (which IAM route this is)
  // The calls, bound to the checked request. Made here, not by the caller.
  std::function<core::Result<std::vector<Outcome>>(ProvisionEnv&)> run;
  std::shared_ptr<ImageBuildResult> image;  // filled by an image build's run
};

// Checks `action` against its flags and the settings, in the order the commands always have
// (every flag first, then the settings), before any call. A TPU VM's Ray token is handed to the
// root's redactor here.
core::Result<ProvisionPlan> PlanProvision(Root& root, const ProvisionRunFlags& flags, ProvisionAction action);

struct ProvisionResult {
  std::string run_id;
  std::vector<Outcome> outcomes;
  bool dry_run = false;
  std::vector<http::Request> planned;  // under --dry-run: what would have been sent
  std::shared_ptr<ImageBuildResult> image;
};

// Runs `plan` with the Google API stack, the run ledger (the run resolved, and made, before any
// call) and the poll settings. Under --dry-run nothing is sent, not even reads, and no credential
// is needed: the result holds the requests instead. With --enable-apis an API the project lacks
// is enabled and the plan run again, once per API. A failure says how to go on.
core::Result<ProvisionResult> Provision(Root& root, const ProvisionRunFlags& flags, const ProvisionPlan& plan);

}  // namespace tputrain::workflow
