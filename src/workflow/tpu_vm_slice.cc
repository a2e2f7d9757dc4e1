#include "tpu_vm_slice.h"

#include "tputrain/workflow/node_pools.h"

namespace tputrain::workflow {

core::Result<TpuVmSlice> ResolveTpuVmSlice(const TpuVmSliceRequest& request) {
  auto slice = catalog::FindSliceType(request.accelerator_type);
  if (!slice) return core::Fail(core::Error::Usage("--accelerator-type: " + slice.error().message));
  const catalog::TpuGeneration& generation = *slice->generation;
  if (!generation.cloud_tpu_api) {
    // Cloud TPU's own pages: "to use TPU7x, use GKE" (or Compute Engine).
    return core::Fail(core::Error::Usage("--accelerator-type: the Cloud TPU API does not offer " + generation.family +
                                         "; make " + slice->accelerator_type +
                                         " as a GKE node pool: tputrain nodepool create NAME --cluster CLUSTER "
                                         "--tpu-type " +
                                         slice->accelerator_type));
  }
  TpuVmSlice resolved{*slice, request.version.empty() ? generation.tpu_vm_runtime_version : request.version};
  if (resolved.runtime_version.empty()) {
    return core::Fail(core::Error::Usage("--version: no TPU software version is known for " + generation.family +
                                         "; give one (gcloud's --version)"));
  }
  if (!request.skip_zone_check) {
    const char* flag = request.zones.size() > 1 ? "--zones" : "--zone";
    for (const auto& zone : request.zones) {
      if (auto offered = catalog::CheckOffered(*slice, zone, flag, kSkipZoneCheckFlag); !offered) {
        return core::Fail(offered.error());
      }
    }
  }
  return resolved;
}

}  // namespace tputrain::workflow
