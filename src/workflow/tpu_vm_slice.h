#pragma once

#include <string>
#include <vector>

#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/result.h"

// What a Cloud TPU VM create may ask for: a type the Cloud TPU API offers (not tpu7x, which only
// GKE and Compute Engine make), a runtime version that is never empty, in a zone the catalog
// says has it.
namespace tputrain::workflow {

struct TpuVmSliceRequest {
  std::string accelerator_type;  // --accelerator-type
  std::string version;           // --version; "" is the generation's from the catalog
  // The zones the create may use (--zone, or each of --zones); none skips the zone check, as does
  // `skip_zone_check` (--skip-zone-check: the catalog can lag Google's).
  std::vector<std::string> zones;
  bool skip_zone_check = false;
};

struct TpuVmSlice {
  catalog::TpuSliceType slice;
  std::string runtime_version;
};

// One usage line naming the flag otherwise: --accelerator-type for a type the catalog does not
// know or the Cloud TPU API does not offer (tpu7x: use a GKE pool), --version when no runtime
// version is known, --zone(s) for a zone without the type (naming the zones that have it).
core::Result<TpuVmSlice> ResolveTpuVmSlice(const TpuVmSliceRequest& request);

}  // namespace tputrain::workflow
