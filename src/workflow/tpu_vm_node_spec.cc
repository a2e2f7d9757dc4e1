// tpu-vm create: the Node its flags describe.
#include "tpu_vm_node_spec.h"

#include "tpu_vm_slice.h"
#include "tputrain/core/duration.h"
#include "tputrain/core/file.h"
#include "tputrain/core/text_file.h"
#include "tputrain/core/utf8.h"
#include "tputrain/gcp/labels.h"
#include "tputrain/workflow/expiry.h"
#include "tputrain/workflow/tpu_vm_ray.h"

namespace tputrain::workflow {

core::Result<gcp::tpu::NodeSpec> TpuVmNodeSpecOf(const TpuVmCreateRequest& request) {
  auto slice = ResolveTpuVmSlice({request.accelerator_type, request.version, {}, true});
  if (!slice) return core::Fail(slice.error());
  gcp::tpu::NodeSpec spec;
  spec.accelerator_type = slice->slice.accelerator_type;
  spec.runtime_version = slice->runtime_version;
  auto metadata = gcp::ParseMetadata("--metadata", request.metadata);
  if (!metadata) return core::Fail(metadata.error());
  spec.metadata = std::move(*metadata);
  auto from_files = gcp::ParseMetadata("--metadata-from-file", request.metadata_from_file);
  if (!from_files) return core::Fail(from_files.error());
  for (const auto& [key, path] : *from_files) {
    if (spec.metadata.count(key) != 0) {
      return core::Fail(core::Error::Usage("--metadata-from-file: " + key + " is also given by --metadata"));
    }
    // Compute Engine's limit for one metadata value.
    auto text = core::ReadFile(path, "--metadata-from-file", 256 * 1024);
    if (!text) return core::Fail(text.error());
    if (!core::IsValidUtf8(*text)) {  // a metadata value is a JSON string
      return core::Fail(core::Error::Usage("--metadata-from-file: " + key + "=" + path + " is not UTF-8 text"));
    }
    spec.metadata[key] = std::move(*text);
  }
  auto labels = gcp::ParseLabels("--labels", request.labels, {std::begin(kReservedLabels), std::end(kReservedLabels)});
  if (!labels) return core::Fail(labels.error());
  spec.labels = std::move(*labels);
  if (!request.ray) {
    for (const auto& [given, flag] :
         {std::pair{!request.setup.empty(), "--setup"}, std::pair{!request.pip.empty(), "--pip"},
          std::pair{!request.ray_start_args.empty(), "--ray-start-args"}}) {
      if (given) return core::Fail(core::Error::Usage(std::string(flag) + ": only with --ray"));
    }
    return spec;
  }
  RayBoot boot;
  boot.ray_version = request.ray_version;
  boot.packages = request.pip;
  boot.start_args = request.ray_start_args;
  if (!request.setup.empty()) {
    // One metadata value's limit; a value is a JSON string, so UTF-8 text.
    auto text = core::ReadTextFile(request.setup, "--setup", 256 * 1024);
    if (!text) return core::Fail(text.error());
    boot.setup = std::move(*text);
  }
  boot.token = NewRayToken();
  boot.slices = request.num_slices;
  auto ray_timeout = core::ParseDuration("--ray-timeout", request.ray_timeout);
  if (!ray_timeout) return core::Fail(ray_timeout.error());
  boot.join_within = std::chrono::ceil<std::chrono::seconds>(*ray_timeout);
  auto with_ray = RayMetadata(boot, spec.metadata);
  if (!with_ray) return core::Fail(with_ray.error());
  spec.metadata = std::move(*with_ray);
  return spec;
}

}  // namespace tputrain::workflow
