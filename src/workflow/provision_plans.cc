// PlanProvision: each provisioning command's checks, in the order the commands have always made
// them (the flags first, then the settings they are checked against), and the calls it makes.
#include "provision_plans.h"
#include "names.h"
#include "tputrain/workflow/provision_command.h"
#include "tputrain/workflow/reads.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/tpu_vm_delete.h"
#include "tputrain/workflow/zone_failover.h"

namespace tputrain::workflow {
namespace {

using Outcomes = core::Result<std::vector<Outcome>>;

// One outcome as the list every provisioning command returns.
template <typename Call>
std::function<Outcomes(ProvisionEnv&)> One(Call call) {
  return [call = std::move(call)](ProvisionEnv& env) -> Outcomes {
    auto outcome = call(env);
    if (!outcome) return core::Fail(outcome.error());
    return std::vector<Outcome>{*outcome};
  };
}

class Planner {
 public:
  Planner(Root& root, const ProvisionRunFlags& flags) : root_(root), flags_(flags) {}

  core::Result<ProvisionPlan> operator()(ClusterCreateRequest request) {
    auto ref = ClusterRef(request.name, "NAME");
    if (!ref) return core::Fail(ref.error());
    request.project = ref->project;
    request.location = ref->location;
    auto resolved = request.Resolve();
    if (!resolved) return core::Fail(resolved.error());
    return Plan([resolved = *resolved](ProvisionEnv& env) { return CreateCluster(env, resolved); });
  }

  core::Result<ProvisionPlan> operator()(const ClusterDeletion& deletion) {
    auto ref = ClusterRef(deletion.name, "NAME");
    if (!ref) return core::Fail(ref.error());
    return Plan(One([ref = *ref](ProvisionEnv& env) { return DeleteCluster(env, ref); }),
                "Delete cluster " + ref->cluster + " in " + ref->location + " and all its node pools?");
  }

  core::Result<ProvisionPlan> operator()(const NodePoolCreation& creation) {
    auto ref = ClusterRef(creation.cluster, "--cluster");
    if (!ref) return core::Fail(ref.error());
    auto request = NodePoolCreateRequest{*ref, creation.name, creation.pool, creation.failover, flags_.async}.Resolve();
    if (!request) return core::Fail(request.error());
    return Plan([request = *request](ProvisionEnv& env) {
      return CreateNodePoolsInAnyZone(env, request.cluster, request.pools, request.failover);
    });
  }

  core::Result<ProvisionPlan> operator()(const NodePoolDeletion& deletion) {
    auto ref = ClusterRef(deletion.cluster, "--cluster");
    if (!ref) return core::Fail(ref.error());
    if (auto valid = CheckGkeName("NAME", deletion.name); !valid) return core::Fail(valid.error());
    return Plan(One([pool = gcp::container::NodePoolRef{*ref, deletion.name}](ProvisionEnv& env) {
                  return DeleteNodePool(env, pool);
                }),
                "Delete node pool " + deletion.name + " of cluster " + ref->cluster + "?");
  }

  core::Result<ProvisionPlan> operator()(RepositoryCreateRequest request) {
    auto located = Located(std::move(request));
    if (!located) return core::Fail(located.error());
    auto ref = located->Ref();
    if (!ref) return core::Fail(ref.error());
    auto spec = located->Spec();
    if (!spec) return core::Fail(spec.error());
    return Plan(One([ref = *ref, spec = *spec](ProvisionEnv& env) { return CreateRepository(env, ref, spec); }));
  }

  core::Result<ProvisionPlan> operator()(const RepositoryDeletion& deletion) {
    auto located = Located(RepositoryCreateRequest{"", "", deletion.name, "", {}});
    if (!located) return core::Fail(located.error());
    auto ref = located->Ref();
    if (!ref) return core::Fail(ref.error());
    return Plan(One([ref = *ref](ProvisionEnv& env) { return DeleteRepository(env, ref); }),
                "Delete repository " + ref->repository + " in " + ref->location + " and every image in it?");
  }

  core::Result<ProvisionPlan> operator()(const BucketCreateRequest& request) {
    auto spec = request.Resolve();
    if (!spec) return core::Fail(spec.error());
    auto project = Setting("project");
    if (!project) return core::Fail(project.error());
    return Plan(
        One([project = *project, spec = *spec](ProvisionEnv& env) { return CreateBucket(env, project, spec); }));
  }

  core::Result<ProvisionPlan> operator()(const BucketDeletion& deletion) {
    const std::string bucket = BucketNameOf(deletion.name);
    if (auto valid = CheckBucketName("NAME", bucket); !valid) return core::Fail(valid.error());
    return Plan(One([bucket, force = deletion.force](ProvisionEnv& env) { return DeleteBucket(env, bucket, force); }),
                "Delete bucket gs://" + bucket + (deletion.force ? " and every object in it?" : "?"));
  }

  core::Result<ProvisionPlan> operator()(TpuVmCreation creation) {
    TpuVmCreateRequest& request = creation.request;
    auto project = Setting("project");
    if (!project) return core::Fail(project.error());
    request.project = *project;
    // --zones replaces --zone (and the configured one).
    request.failover.replaced_zone = creation.location_flag;
    if (request.failover.zones.empty()) {
      auto zone = Setting("location");
      if (!zone) return core::Fail(zone.error());
      request.zone = *zone;
    }
    request.async = flags_.async;
    auto plan = PlanTpuVmCreate(request);
    if (!plan) return core::Fail(plan.error());
    // The token is a secret: never in a dry run's bodies, logs or messages.
    if (!plan->ray_token.empty()) root_.redactor().Hold(plan->ray_token);
    return Plan([plan = *plan](ProvisionEnv& env) { return CreatePlannedTpuVms(env, plan); });
  }

  core::Result<ProvisionPlan> operator()(const TpuVmDeletion& deletion) {
    auto request = TpuVmDeleteIn(root_, deletion.names);
    if (!request) return core::Fail(request.error());
    std::string names;
    for (const auto& name : deletion.names) names += (names.empty() ? "" : ", ") + name;
    return Plan([request = *request](ProvisionEnv& env) { return DeleteTpuVms(env, request); },
                "Delete TPU VM(s) " + names + " in " + request->zone + "?");
  }

  core::Result<ProvisionPlan> operator()(ServiceAccountCreateRequest request) {
    if (auto valid = request.Check(); !valid) return core::Fail(valid.error());
    auto project = Setting("project");
    if (!project) return core::Fail(project.error());
    request.project = *project;
    return Plan([request](ProvisionEnv& env) { return CreateServiceAccountWithRoles(env, request); });
  }

  core::Result<ProvisionPlan> operator()(const WorkloadIdentityBinding& binding) {
    return PlanWorkloadIdentity(root_, binding);
  }
  core::Result<ProvisionPlan> operator()(const ImageBuilding& building) { return PlanImageBuild(root_, building); }

 private:
  static ProvisionPlan Plan(std::function<Outcomes(ProvisionEnv&)> run, std::string question = "") {
    return ProvisionPlan{std::move(question), {}, std::move(run), nullptr};
  }
  core::Result<std::string> Setting(const std::string& key) { return RequireSetting(root_, key); }
  core::Result<gcp::container::ClusterRef> ClusterRef(const std::string& name, std::string_view field) {
    return ClusterRefOf(root_, name, field);
  }
  // Repositories live in regions: a zone from the configuration (us-east5-b) means its region,
  // as the seed puts the repository beside the cluster.
  core::Result<RepositoryCreateRequest> Located(RepositoryCreateRequest request) {
    if (auto valid = request.CheckName(); !valid) return core::Fail(valid.error());
    auto project = Setting("project");
    if (!project) return core::Fail(project.error());
    auto location = Setting("location");
    if (!location) return core::Fail(location.error());
    request.project = *project;
    request.location = *location;
    return request;
  }

  Root& root_;
  const ProvisionRunFlags& flags_;
};

}  // namespace

core::Result<ProvisionPlan> PlanProvision(Root& root, const ProvisionRunFlags& flags, ProvisionAction action) {
  return std::visit(Planner(root, flags), std::move(action));
}

}  // namespace tputrain::workflow
