#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/clock.h"
#include "tputrain/core/env.h"
#include "tputrain/core/result.h"
#include "tputrain/k8s/manifest.h"
#include "tputrain/workflow/provision.h"
#include "tputrain/workflow/provision_requests.h"
#include "tputrain/workflow/ray_jobs.h"
#include "tputrain/workflow/serve.h"
#include "tputrain/workflow/serve_saxml.h"
#include "tputrain/workflow/serve_vllm.h"
#include "tputrain/workflow/submit_flow.h"
#include "tputrain/workflow/tpu_vm_create.h"

// A stack file: one path (a cluster with its pools, a bucket and identities, an image, and the
// workload that runs last) as the steps `tputrain up` runs, each as soon as what it needs is
// there. Each step is the request of the command that makes it, checked by the same code.
namespace tputrain::workflow {

enum class StepKind {
  kServices,        // "services": services enable
  kCluster,         // "cluster": cluster create (without its pools)
  kNodePool,        // "nodepool/NAME": nodepool create (a --tpu-type of the cluster's too)
  kTpuVm,           // "tpu-vm/NAME": tpu-vm create (with Ray on its hosts, or without)
  kBucket,          // "bucket": bucket create
  kServiceAccount,  // "service-account/NAME": iam service-account create
  kIdentity,        // "identity/NAMESPACE/KSA": iam bind-workload-identity
  kRegistry,        // "registry": registry create
  kImage,           // "image": image build
  kApply,           // "apply": apply -f, on the stack's cluster
  kWorkload,        // "workload": submit, or serve up
};
std::string_view StepKindName(StepKind kind);

// The image step: its context (a directory, or a template rendered at build time) and tag.
struct StackImage {
  ImageBuildRequest request;             // context_dir empty when rendered
  std::string render_template;           // `render`
  std::vector<std::string> render_sets;  // `set`
  std::vector<std::string> template_dirs;
  std::map<std::string, std::string> configuration;
};

struct StackApply {
  gcp::container::ClusterRef cluster;
  std::string ns;
  std::vector<k8s::Object> objects;
  std::string queue;  // the Kueue queue its workloads are labelled for
  bool force_conflicts = false;
};

// The workload: a MaxText run (submit), a served model (serve up, by engine), or a Ray job
// (job submit) on a TPU VM's Ray.
enum class WorkloadKind { kSubmit, kServeJetStream, kServeVllm, kServeSaxml, kRayJob };

struct StackWorkload {
  WorkloadKind kind = WorkloadKind::kSubmit;
  gcp::container::ClusterRef cluster;
  std::string ns;
  // submit or job on the Ray of this TPU VM (made with Ray by the stack, or there before)
  // instead of a RayCluster on the cluster. Its zone is where the stack's tpu-vm step made it
  // (the run ledger says, when --zones chose), else the one given.
  std::optional<gcp::tpu::NodeRef> tpu_vm;
  SubmitRequest submit;
  std::optional<JobSubmitRequest> job;
  std::optional<JetStreamUpRequest> jetstream;
  std::optional<VllmUpRequest> vllm;
  std::optional<SaxmlUpRequest> saxml;
  std::string lws_manifest;     // where LeaderWorkerSet comes from (empty: its pinned release)
  std::string jobset_manifest;  // where JobSet comes from (Saxml; empty: its pinned release)
  // raycluster-values written in the file as maps: each a values file of its own when it runs,
  // after those the request names.
  std::vector<nlohmann::json> inline_values;
};

struct StackStep {
  std::string id;
  StepKind kind = StepKind::kServices;
  std::vector<std::string> needs;  // ids of the steps it waits for
  int line = 0;                    // where the file says it
  std::string path;                // its key path ("nodepools[0]")
  // What the step does: the member its kind names.
  std::vector<std::string> services;
  std::optional<ClusterCreate> cluster;  // its pools are steps of their own
  bool recreate_unusable = false;
  std::optional<NodePoolCreateRequest::Resolved> nodepool;
  std::optional<TpuVmCreatePlan> tpu_vm;  // its Ray token (if any) made once, at load
  std::optional<gcp::storage::BucketSpec> bucket;
  std::optional<ServiceAccountCreateRequest> service_account;
  std::optional<WorkloadIdentityRequest::Resolved> identity;
  std::optional<gcp::artifactregistry::RepositoryRef> registry;
  gcp::artifactregistry::RepositorySpec registry_spec;
  std::optional<StackImage> image;
  std::optional<StackApply> apply;
  std::optional<StackWorkload> workload;
  // What the ledger remembers a step without a cloud resource of its own by (image, apply,
  // workload): a second `up` with the same fingerprint does not do it again.
  std::string fingerprint;
};

struct Stack {
  std::string file;  // as given
  std::string name;  // the run id
  std::string project;
  std::string location;
  std::string ttl;
  std::vector<StackStep> steps;  // in an order where each comes after what it needs

  const StackStep* Find(std::string_view id) const;
  // What the stack holds that no output may show (the Ray tokens its TPU VMs boot with, a vLLM
  // step's Hugging Face token): the caller's redactor holds them before anything is printed.
  std::vector<std::string> Secrets() const;
  // Ids of the steps that need `id`, directly.
  std::vector<std::string> Dependents(std::string_view id) const;
};

// What loading needs besides the file and the environment.
struct StackLoadContext {
  core::Clock& clock;                      // submit's job is built to be checked
  std::vector<std::string> template_dirs;  // the built-in templates (image render, RayCluster)
};

// The stack schema (JSON Schema 2020-12), as shipped in share/tputrain/stack.schema.json.
std::string_view StackSchemaJson();

// Reads `path` (bounded), replaces ${VAR} and ${VAR:-default} from `env`, checks it against the
// schema, then each step as its command checks its flags, then the graph (a `needs` naming no
// step, or a cycle). Every failure is one usage line, "FILE:LINE: KEY.PATH: what is wrong",
// before any call.
core::Result<Stack> LoadStack(const std::string& path, const core::Env& env, const StackLoadContext& context);

// The graph's ids in order, each with what it waits for: what `up --dry-run` prints first.
nlohmann::json GraphJson(const Stack& stack);

}  // namespace tputrain::workflow
