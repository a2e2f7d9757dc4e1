#include "tputrain/workflow/tpu_vm_delete.h"

#include "tpu_vm_multislice.h"
#include "tputrain/gcp/names.h"
#include "tputrain/workflow/iap_firewall.h"
#include "tputrain/workflow/reads.h"
#include "tputrain/workflow/root.h"

namespace tputrain::workflow {

core::Status CheckTpuVmDelete(const TpuVmDeleteRequest& request) {
  for (const auto& name : request.names) {
    if (auto valid = gcp::CheckResourceId("NAME", name, gcp::kTpuNodeNameLength); !valid) return valid;
  }
  return {};
}

core::Result<TpuVmDeleteRequest> TpuVmDeleteIn(Root& root, const std::vector<std::string>& names) {
  auto where = ProjectAndZone(root);
  if (!where) return core::Fail(where.error());
  TpuVmDeleteRequest request{where->project, where->zone, names};
  if (auto valid = CheckTpuVmDelete(request); !valid) return core::Fail(valid.error());
  return request;
}

core::Result<std::vector<Outcome>> DeleteTpuVms(ProvisionEnv& env, const TpuVmDeleteRequest& request) {
  std::vector<Outcome> outcomes;
  for (const auto& name : request.names) {
    auto outcome = DeleteTpuVmOrSlices(env, {request.project, request.zone, name});
    if (!outcome) return core::Fail(outcome.error());
    outcomes.push_back(*outcome);
  }
  // The run's IAP rule goes with its last TPU VM.
  auto rules = DeleteUnusedIapFirewalls(env);
  if (!rules) return core::Fail(rules.error());
  outcomes.insert(outcomes.end(), rules->begin(), rules->end());
  return outcomes;
}

}  // namespace tputrain::workflow
