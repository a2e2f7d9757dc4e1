// tpu-vm create: the Node its flags describe.
#include "commands/tpu_vm_create.h"
#include "output/output.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/duration.h"
#include "tputrain/core/file.h"
#include "tputrain/core/text.h"
#include "tputrain/core/text_file.h"
#include "tputrain/core/utf8.h"
#include "tputrain/gcp/labels.h"
#include "tputrain/gcp/names.h"
#include "tputrain/gcp/tpu/client.h"
#include "tputrain/workflow/expiry.h"
#include "tputrain/workflow/iap_firewall.h"
#include "tputrain/workflow/tpu_vm_multislice.h"
#include "tputrain/workflow/tpu_vm_ray.h"
#include "tputrain/workflow/tpu_vm_slice.h"

namespace tputrain::cli {

core::Result<gcp::tpu::NodeSpec> TpuVmSpecOf(const TpuVmCreateOptions& options) {
  auto slice = workflow::ResolveTpuVmSlice({options.accelerator_type, options.version, {}, true});
  if (!slice) return core::Fail(slice.error());
  gcp::tpu::NodeSpec spec;
  spec.accelerator_type = slice->slice.accelerator_type;
  spec.runtime_version = slice->runtime_version;
  auto metadata = gcp::ParseMetadata("--metadata", options.metadata);
  if (!metadata) return core::Fail(metadata.error());
  spec.metadata = std::move(*metadata);
  auto from_files = gcp::ParseMetadata("--metadata-from-file", options.metadata_from_file);
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
  auto labels = gcp::ParseLabels("--labels", options.labels,
                                 {std::begin(workflow::kReservedLabels), std::end(workflow::kReservedLabels)});
  if (!labels) return core::Fail(labels.error());
  spec.labels = std::move(*labels);
  if (!options.ray) {
    for (const auto& [given, flag] :
         {std::pair{!options.setup.empty(), "--setup"}, std::pair{!options.pip.empty(), "--pip"},
          std::pair{!options.ray_start_args.empty(), "--ray-start-args"}}) {
      if (given) return core::Fail(core::Error::Usage(std::string(flag) + ": only with --ray"));
    }
    return spec;
  }
  workflow::RayBoot boot;
  boot.ray_version = options.ray_version;
  boot.packages = options.pip;
  boot.start_args = options.ray_start_args;
  if (!options.setup.empty()) {
    // One metadata value's limit; a value is a JSON string, so UTF-8 text.
    auto text = core::ReadTextFile(options.setup, "--setup", 256 * 1024);
    if (!text) return core::Fail(text.error());
    boot.setup = std::move(*text);
  }
  boot.token = workflow::NewRayToken();
  boot.slices = options.num_slices;
  auto ray_timeout = core::ParseDuration("--ray-timeout", options.ray_timeout);
  if (!ray_timeout) return core::Fail(ray_timeout.error());
  boot.join_within = std::chrono::ceil<std::chrono::seconds>(*ray_timeout);
  auto with_ray = workflow::RayMetadata(boot, spec.metadata);
  if (!with_ray) return core::Fail(with_ray.error());
  spec.metadata = std::move(*with_ray);
  return spec;
}

}  // namespace tputrain::cli
