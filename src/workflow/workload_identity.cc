#include "workload_identity.h"

#include "ksa_annotation.h"
#include "tputrain/workflow/root.h"

namespace tputrain::workflow {

core::Result<std::vector<Outcome>> BindWorkloadIdentity(Root& root, ProvisionEnv& env, const std::string& project,
                                                        const WorkloadIdentityRequest::Resolved& resolved,
                                                        const KubeAccessFlags& access) {
  auto binding = BindingOf(env, project, resolved);
  if (!binding) return core::Fail(binding.error());
  auto outcome = AddPolicyBinding(env, *binding);
  if (!outcome) return core::Fail(outcome.error());
  std::vector<Outcome> outcomes{*outcome};
  if (!resolved.annotate_ksa) return outcomes;
  auto connection = ConnectCluster(root, access);
  if (!connection) return core::Fail(connection.error());
  RecordedApplyEnv apply{root.runtime(),
                         *(*connection)->client,
                         *(*connection)->discovery,
                         AccessRecordOf(root, access, **connection),
                         {env.ledger, env.run_id}};
  const auto& ns = resolved.ns;
  const auto& ksa = resolved.ksa;
  auto annotated = AnnotateServiceAccount(apply, ns, ksa, resolved.gsa, env.dry_run != nullptr);
  if (!annotated) return core::Fail(annotated.error());
  Outcome account{state::ResourceKind::kK8sObject, "ServiceAccount " + ns + "/" + ksa, annotated->object.Describe(),
                  annotated->action == k8s::ApplyAction::kCreated ? OutcomeAction::kCreated : OutcomeAction::kAdopted};
  account.details = {{"annotation", std::string(kGsaAnnotation) + "=" + resolved.gsa}};
  outcomes.push_back(account);
  return outcomes;
}

}  // namespace tputrain::workflow
