#pragma once

#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/gcp/tpu/types.h"
#include "tputrain/workflow/tpu_vm_create.h"

namespace tputrain::workflow {

// The Node a tpu-vm create asks for: the catalog's slice, metadata (and files), labels, and with
// --ray the boot metadata that starts Ray on every host. One usage line naming the flag otherwise.
core::Result<gcp::tpu::NodeSpec> TpuVmNodeSpecOf(const TpuVmCreateRequest& request);

}  // namespace tputrain::workflow
