#include "commands/job_session.h"

namespace tputrain::cli {

core::Result<std::unique_ptr<RaySession>> Connect(const JobOptions& options, Context& context) {
  if (!options.tpu_vm.name.empty()) {
    if (!options.raycluster.name.empty()) {
      return core::Fail(core::Error::Usage("--tpu-vm and --raycluster are exclusive: pass one"));
    }
    return ConnectTpuVmRay(options.tpu_vm, options.connection, context);
  }
  if (!options.raycluster.name.empty()) return ConnectRayCluster(options.raycluster, options.connection, context);
  auto client_options = ResolveRayClient(options.connection, context);
  if (!client_options) return core::Fail(client_options.error());
  return context.stack().Ray(std::move(*client_options));
}

std::string ReattachFlags(const JobOptions& options, Context& context) {
  if (!options.tpu_vm.name.empty()) {
    auto settings = context.settings();
    const std::string zone = settings ? settings->Get("location").value_or("") : "";
    return "--tpu-vm " + options.tpu_vm.name + (zone.empty() ? "" : " --zone " + zone) +
           (options.tpu_vm.reach.via == "iap" ? "" : " --via " + options.tpu_vm.reach.via);
  }
  return options.raycluster.name.empty() ? "" : RayClusterFlagsText(options.raycluster, context);
}

}  // namespace tputrain::cli
