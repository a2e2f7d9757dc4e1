// tputrain queue create | delete: Kueue found or installed, the queue's objects applied and
// recorded, and deleted again when the run made them.
#include <algorithm>
#include <set>

#include "queue_cluster.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/json.h"
#include "tputrain/core/poll.h"
#include "tputrain/gcp/names.h"
#include "tputrain/k8s/names.h"
#include "tputrain/workflow/node_pools.h"

namespace tputrain::workflow {
namespace {

namespace kueue = k8s::kueue;

// Kueue's validating webhooks answer only once its manager serves them: on a cluster where it was
// just installed the first creates can meet "failed calling webhook" for a few seconds.
constexpr std::chrono::seconds kWebhookWarmUp{90};

bool WebhookNotReady(const core::Error& error) {
  return error.message.find("failed calling webhook") != std::string::npos ||
         error.message.find("no endpoints available") != std::string::npos;
}

// Kueue serves kueue.x-k8s.io/v1beta2 (>= 0.15): found; only v1beta1: refused; nothing: absent.
core::Result<bool> KueueServed(k8s::Discovery& discovery) {
  auto v1beta2 = discovery.Lookup(std::string(kueue::kApiVersion), "ClusterQueue");
  if (v1beta2) return true;
  if (v1beta2.error().kind != core::ErrorKind::kFailedPrecondition) return core::Fail(v1beta2.error());
  auto v1beta1 = discovery.Lookup("kueue.x-k8s.io/v1beta1", "ClusterQueue");
  if (v1beta1) {
    return core::Fail(core::Error::Make(
        core::ErrorKind::kFailedPrecondition,
        "the Kueue on this cluster serves only kueue.x-k8s.io/v1beta1 (a release before 0.15); tputrain writes "
        "v1beta2 objects only (Kueue 0.20 serves no v1beta1): upgrade Kueue to " +
            KueueOperator().version + " or later"));
  }
  if (v1beta1.error().kind != core::ErrorKind::kFailedPrecondition) return core::Fail(v1beta1.error());
  return false;
}

// The shapes asked for (slice types), or every TPU shape among the nodes; quota from the nodes'
// chips unless --chips says.
core::Result<std::vector<kueue::TpuShape>> ShapesFor(const QueueCreateRequest& request,
                                                     const std::vector<kueue::TpuShape>& on_nodes) {
  std::vector<kueue::TpuShape> shapes;
  if (request.tpu_types.empty()) {
    shapes = on_nodes;
    if (shapes.empty()) {
      return core::Fail(core::Error::Make(
          core::ErrorKind::kFailedPrecondition,
          "the cluster has no TPU nodes to queue for (pools that scale from zero have none yet): name the "
          "shapes with --tpu-type (for example --tpu-type v6e-16) and the quota with --chips"));
    }
  }
  for (const auto& type : request.tpu_types) {
    auto slice = catalog::FindSliceType(type);
    if (!slice) return core::Fail(core::Error::Usage("--tpu-type: " + slice.error().message));
    kueue::TpuShape shape{slice->generation->gke_accelerator, slice->topology, 0, 0};
    for (const auto& have : on_nodes) {
      if (have.accelerator == shape.accelerator && have.topology == shape.topology) shape = have;
    }
    // The pool made for the queue has no nodes until GKE provisions them: one slice's chips.
    if (shape.chips == 0 && !request.create_nodepool.empty()) shape.chips = slice->chips;
    if (shape.chips == 0 && !request.chips) {
      return core::Fail(core::Error::Usage("--chips: the cluster has no " + type + " nodes (" + shape.accelerator +
                                           " " + shape.topology + ") to count chips from; say the quota"));
    }
    shapes.push_back(shape);
  }
  if (request.chips) {
    for (auto& shape : shapes) shape.chips = *request.chips;
  }
  return shapes;
}

// The flex-start pool with queued provisioning for `tpu_type`, made before anything else: GKE may
// refuse the pair for TPUs (it did in December 2025), and its words then say why.
core::Status CreateQueuedPool(QueueEnv& env, const QueueCreateRequest& request) {
  TpuPoolRequest pool;
  pool.tpu_type = request.tpu_types.front();
  pool.capacity.capacity = "flex-start";
  auto specs = NodePoolsFor(request.create_nodepool, pool);
  if (!specs) return core::Fail(specs.error());
  for (auto& spec : *specs) spec.queued_provisioning = true;
  env.reporter.Progress("queue " + request.name,
                        "creating node pool " + request.create_nodepool + " (flex-start, queued provisioning)");
  auto created = env.create_pools(*specs);
  if (created || created.error().http_status != 400 ||
      created.error().message.find("queued provisioning") == std::string::npos) {
    return created;
  }
  auto error = created.error();
  error.message = "GKE refuses a flex-start node pool with queued provisioning for " + pool.tpu_type + ": " +
                  error.message +
                  "\n  nothing was made; for TPUs use a queue without --flex-start over a flex-start pool "
                  "(tputrain nodepool create ... --capacity flex-start: 0 nodes, grown when admitted pods wait)";
  return core::Fail(error);
}

}  // namespace

const OperatorInfo& KueueOperator() {
  static const OperatorInfo info = {"kueue",
                                    std::string(kueue::kApiVersion),
                                    "ClusterQueue",
                                    "v0.17.1",
                                    "https://github.com/kubernetes-sigs/kueue/releases/download/v0.17.1/manifests.yaml",
                                    "tputrain queue create"};
  return info;
}

core::Result<QueueCreateOutcome> CreateQueue(QueueEnv& env, const QueueCreateRequest& request,
                                             std::chrono::milliseconds install_timeout) {
  QueueCreateOutcome outcome;
  outcome.cluster_queue = request.name;
  const std::string ns = request.access.ns.empty() ? env.client.default_namespace() : request.access.ns;
  outcome.local_queue = ns + "/" + request.name;

  // The nodes say the shapes and chips; someone who may not list them says both instead.
  auto nodes = env.client.GetJson("/api/v1/nodes", "nodes");
  const bool said = !request.tpu_types.empty() && request.chips;
  if (!nodes && !(said && nodes.error().kind == core::ErrorKind::kPermissionDenied)) {
    return core::Fail(nodes.error());
  }
  auto shapes = ShapesFor(request, nodes ? kueue::TpuShapesOfNodes(*nodes) : std::vector<kueue::TpuShape>{});
  if (!shapes) return core::Fail(shapes.error());
  outcome.shapes = *shapes;

  auto served = KueueServed(env.discovery);
  if (!served) return core::Fail(served.error());
  if (!request.create_nodepool.empty() && !request.dry_run) {
    if (auto pool = CreateQueuedPool(env, request); !pool) return core::Fail(pool.error());
  }
  if (*served) {
    env.reporter.Info("Kueue is installed (kueue.x-k8s.io/v1beta2 served): using it as it is");
  } else {
    const auto& info = KueueOperator();
    auto objects = LoadOperatorManifest(env.downloads,
                                        request.kueue_manifest.empty() ? info.manifest_url : request.kueue_manifest);
    if (!objects) return core::Fail(objects.error());
    auto installed = InstallOperator(env, info, *objects, request.dry_run, install_timeout, env.reporter);
    if (!installed) return core::Fail(installed.error());
    outcome.kueue = KueueInstall::kInstalled;
    if (request.dry_run) {
      // The server cannot check the queue's objects against CRDs a dry run did not store.
      env.reporter.Info("the queue's objects are checked by the server once Kueue is installed (without --dry-run)");
      return outcome;
    }
    env.discovery.Forget("kueue.x-k8s.io");
  }

  kueue::QueueSpec spec{request.name, ns, *shapes, request.flex_start};
  auto objects = kueue::RenderQueue(spec);
  k8s::ApplyOptions options;
  options.dry_run = request.dry_run;
  options.ns = ns;
  env.reporter.Progress("queue " + request.name, "applying " + std::to_string(objects.size()) + " Kueue objects");
  core::PollOptions poll{std::chrono::milliseconds(500), 2.0, std::chrono::milliseconds(5000), kWebhookWarmUp};
  poll.is_transient = WebhookNotReady;
  poll.transient_failures = 1000;
  poll.on_timeout = core::OnTimeout::kLastError;
  auto applied = core::PollUntil(
      [&]() -> core::Result<bool> {
        auto results = ApplyRecorded(env, objects, options, [&](const k8s::ApplyResult& result) {
          env.reporter.Info(result.object.Describe() + " " +
                            std::string(k8s::ApplyActionName(result.action, request.dry_run)));
        });
        if (!results) return core::Fail(results.error());
        outcome.applied = std::move(*results);
        return true;
      },
      poll, env);
  if (!applied) return core::Fail(applied.error());
  env.reporter.Done("queue " + request.name, "LocalQueue " + outcome.local_queue + " → ClusterQueue " + request.name);
  return outcome;
}

core::Result<QueueDeleteOutcome> DeleteQueue(RecordedDeleteEnv& env, const std::string& name, const std::string& ns,
                                             std::chrono::milliseconds timeout, bool dry_run) {
  if (auto valid = kueue::ValidateQueueName("queue", name); !valid) return core::Fail(valid.error());
  const std::string in_ns = ns.empty() ? env.client.default_namespace() : ns;
  auto object = [&](const std::string& kind, const std::string& object_name, const std::string& object_ns) {
    k8s::Object o;
    o.api_version = std::string(kueue::kApiVersion);
    o.kind = kind;
    o.name = object_name;
    o.ns = object_ns;
    o.json = {{"apiVersion", o.api_version}, {"kind", kind}, {"metadata", {{"name", object_name}}}};
    if (!object_ns.empty()) o.json["metadata"]["namespace"] = object_ns;
    o.source = "queue " + name;
    return o;
  };
  // The queue's objects as the cluster has them: its ClusterQueue names its flavors and checks.
  std::vector<k8s::Object> candidates;
  auto cq = env.client.Send("GET", "/apis/" + std::string(kueue::kApiVersion) + "/clusterqueues/" + name);
  if (!cq) return core::Fail(cq.error());
  std::set<std::string> flavors, checks;
  if (cq->ok()) {
    auto parsed = core::ParseJson(cq->body, "ClusterQueue " + name);
    if (!parsed) return core::Fail(parsed.error());
    auto status = kueue::ParseClusterQueue(*parsed);
    for (const auto& quota : status.quota) flavors.insert(quota.flavor);
    checks.insert(status.checks.begin(), status.checks.end());
  } else if (cq->status != 404) {
    return core::Fail(k8s::ErrorFromStatus(cq->status, cq->body, "ClusterQueue " + name));
  }
  for (const auto& flavor : flavors) candidates.push_back(object("ResourceFlavor", flavor, ""));
  for (const auto& check : checks) {
    candidates.push_back(object("ProvisioningRequestConfig", check, ""));
    candidates.push_back(object("AdmissionCheck", check, ""));
  }
  candidates.push_back(object("ClusterQueue", name, ""));
  candidates.push_back(object("LocalQueue", name, in_ns));

  // Only what the run recorded as its own is deleted.
  QueueDeleteOutcome outcome;
  std::vector<k8s::Object> owned;
  std::optional<state::Ledger> ledger;
  if (env.store != nullptr && !env.run_id.empty()) {
    auto loaded = env.store->Load(env.run_id);
    if (loaded) ledger = std::move(*loaded);
    if (!loaded && loaded.error().kind != core::ErrorKind::kNotFound) return core::Fail(loaded.error());
  }
  for (auto& candidate : candidates) {
    const auto entry = K8sObjectEntry(env.access, candidate, true);
    const auto* found = ledger ? ledger->Find(state::ResourceKind::kK8sObject, entry.name) : nullptr;
    if (found != nullptr && found->owned && found->state != state::EntryState::kDeleted) {
      owned.push_back(std::move(candidate));
    } else {
      outcome.kept.push_back(candidate.Describe());
    }
  }
  if (owned.empty() && !cq->ok()) {
    return core::Fail(
        core::Error::Make(core::ErrorKind::kNotFound, "no queue " + name + " (ClusterQueue " + name + " not found)"));
  }
  k8s::DeleteOptions options;
  options.dry_run = dry_run;
  options.timeout = timeout;
  auto deleted = DeleteRecorded(env, std::move(owned), options, [&](const k8s::DeleteResult& result) {
    env.reporter.Info(result.object.Describe() + (result.existed ? " deleted" : " not found"));
  });
  if (!deleted) return core::Fail(deleted.error());
  outcome.deleted = std::move(*deleted);
  return outcome;
}

}  // namespace tputrain::workflow
