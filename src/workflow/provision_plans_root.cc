#include "ksa_annotation.h"
#include "provision_plans.h"
#include "tputrain/workflow/reads.h"
#include "workload_identity.h"

namespace tputrain::workflow {

core::Result<ProvisionPlan> PlanWorkloadIdentity(Root& root, const WorkloadIdentityBinding& binding) {
  auto resolved = binding.request.Resolve();
  if (!resolved) return core::Fail(resolved.error());
  auto project = RequireSetting(root, "project");
  if (!project) return core::Fail(project.error());
  ProvisionPlan plan;
  if (binding.request.gsa.empty()) {
    plan.notes.push_back("the role goes to the KSA's own principal: no Google service account and no " +
                         std::string(kGsaAnnotation) + " annotation are needed");
  } else if (!binding.request.annotate_ksa) {
    plan.notes.push_back("pods act as " + binding.request.gsa + " once the KSA is annotated " + kGsaAnnotation + "=" +
                         binding.request.gsa + " (--annotate-ksa does it)");
  }
  plan.run = [&root, project = *project, resolved = *resolved, access = binding.access](ProvisionEnv& env) {
    return BindWorkloadIdentity(root, env, project, resolved, access);
  };
  return plan;
}

core::Result<ProvisionPlan> PlanImageBuild(Root& root, const ImageBuilding& building) {
  ImageBuildFlags flags = building.flags;
  if (auto valid = flags.Resolve(); !valid) return core::Fail(valid.error());
  auto project = RequireSetting(root, "project");
  if (!project) return core::Fail(project.error());
  auto location = LocationOrAll(root);
  if (!location) return core::Fail(location.error());
  flags.project = *project;
  flags.location = *location;
  auto request = flags.Resolve();
  if (!request) return core::Fail(request.error());
  auto packed = PackContext(*request);
  if (!packed) return core::Fail(packed.error());
  ProvisionPlan plan;
  plan.image = std::make_shared<ImageBuildResult>();
  plan.run = [request = *request, packed = std::make_shared<PackedContext>(std::move(*packed)),
              on_log = building.on_log, built = plan.image](ProvisionEnv& env) -> core::Result<std::vector<Outcome>> {
    auto result = BuildImage(env, request, *packed, on_log);
    if (!result) return core::Fail(result.error());
    *built = *result;
    return result->outcomes;
  };
  return plan;
}

}  // namespace tputrain::workflow
