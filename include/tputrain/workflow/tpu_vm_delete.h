#pragma once

// tpu-vm delete: TPU VMs, or the slices a multislice queued resource made, and the run's IAP
// firewall rule with its last TPU VM.
#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/workflow/provision.h"

namespace tputrain::workflow {

struct TpuVmDeleteRequest {
  std::string project;
  std::string zone;
  std::vector<std::string> names;  // each a TPU VM, or a multislice's queued resource
};

// Each NAME as the Cloud TPU API takes it (one usage line naming NAME otherwise).
core::Status CheckTpuVmDelete(const TpuVmDeleteRequest& request);

class Root;

// `tpu-vm delete NAME...`: in the configured project and zone (both required), each NAME checked.
core::Result<TpuVmDeleteRequest> TpuVmDeleteIn(Root& root, const std::vector<std::string>& names);

// Deletes each NAME (DeleteTpuVmOrSlices), then the IAP rules no TPU VM of the run uses any more.
core::Result<std::vector<Outcome>> DeleteTpuVms(ProvisionEnv& env, const TpuVmDeleteRequest& request);

}  // namespace tputrain::workflow
