// The stack's TPU VM path (seed 004): tpu-vms, each as `tpu-vm create` checks its flags, and a
// workload on a TPU VM's Ray (a Ray job, or submit).
#include "stack_sections.h"

#include <filesystem>

#include "tputrain/core/gcp_location.h"
#include "tputrain/gcp/names.h"

namespace tputrain::workflow::internal {
namespace {

// The zone a TPU VM of the stack is made in: its own `zone`, else the stack's location when that
// is a zone; "" when `zones` chooses.
core::Result<std::string> ZoneOf(const Section& section, const StackSettings& settings) {
  if (section.Has("zones")) return section.Str("zone");
  const std::string zone = section.Str("zone", settings.location);
  if (!core::IsZone(zone)) {
    return core::Fail(section.At(section.Has("zone") ? "zone" : "",
                                 "a TPU VM is made in a zone, and " + zone +
                                     " is not one: give zone (us-east5-b) or zones, or a zonal location"));
  }
  return zone;
}

}  // namespace

core::Result<StackStep> TpuVmStep(const Section& section, const StackSettings& settings) {
  TpuVmCreateRequest request;
  request.project = settings.project;
  auto zone = ZoneOf(section, settings);
  if (!zone) return core::Fail(zone.error());
  request.zone = section.Has("zones") ? "" : *zone;
  request.names = {section.Str("name")};
  request.accelerator_type = section.Str("accelerator-type");
  request.version = section.Str("version");
  request.metadata = section.Strings("metadata");
  for (const auto& item : section.Strings("metadata-from-file")) {
    const size_t equals = item.find('=');
    request.metadata_from_file.push_back(
        equals == std::string::npos ? item : item.substr(0, equals + 1) + Relative(settings, item.substr(equals + 1)));
  }
  request.labels = section.Strings("labels");
  request.capacity.capacity = CapacityOf(section);
  request.capacity.reserved = section.Bool("reserved");
  request.capacity.queued = section.Bool("queued");
  request.capacity.valid_until = section.Str("valid-until");
  request.capacity.valid_after = section.Str("valid-after");
  request.failover = FailoverFlags{section.Strings("zones"), section.Bool("retry-until-up"), section.Str("retry-gap"),
                                   section.Has("zones") ? *zone : ""};
  request.skip_zone_check = section.Bool("skip-zone-check");
  if (section.Has("num-slices")) {
    const int64_t slices = section.value()["num-slices"].get<int64_t>();
    if (slices < 1 || slices > 256) {
      return core::Fail(section.At("num-slices", "expected 1 to 256, got " + std::to_string(slices)));
    }
    request.num_slices = static_cast<int>(slices);
  }
  request.ray = section.Bool("ray");
  request.ray_version = section.Str("ray-version", request.ray_version);
  request.setup = Relative(settings, section.Str("setup"));
  request.pip = section.Strings("pip");
  request.ray_start_args = section.Str("ray-start-args");
  request.ray_timeout = section.Str("ray-timeout", request.ray_timeout);
  request.iap_firewall = section.Str("iap-firewall");
  // Everything the command refuses, refused here, where the file says it; its Ray token (with
  // ray) is made now, once: a second `up` adopts the VMs, whose token it does not compare.
  auto plan = PlanTpuVmCreate(request);
  if (!plan) return core::Fail(section.Reworded(plan.error()));
  StackStep step = StepAt(section, "tpu-vm/" + request.names.front(), StepKind::kTpuVm);
  step.tpu_vm = std::move(*plan);
  return step;
}

core::Result<gcp::tpu::NodeRef> TpuVmTargetOf(const Section& section, const StackSettings& settings) {
  const std::string name = section.Str("tpu-vm");
  if (auto valid = gcp::CheckResourceId("--tpu-vm", name, gcp::kTpuNodeNameLength); !valid) {
    return core::Fail(section.Reworded(valid.error()));
  }
  // One of the stack's: where it is made (the ledger says, when zones chose); else the stack's zone.
  auto made = settings.tpu_vm_zones.find(name);
  const std::string zone = made != settings.tpu_vm_zones.end() ? made->second : settings.location;
  if (made == settings.tpu_vm_zones.end() && !core::IsZone(zone)) {
    return core::Fail(section.At("tpu-vm", "no TPU VM " + name + " in this stack, and the stack's location " + zone +
                                               " is not a zone to find it in"));
  }
  return gcp::tpu::NodeRef{settings.project, zone, name};
}

core::Status JobWorkload(const Section& job, const StackSettings& settings, StackWorkload& workload) {
  auto node = TpuVmTargetOf(job, settings);
  if (!node) return core::Fail(node.error());
  JobSubmitRequest request;
  request.command = job.Strings("command");
  if (request.command.empty()) return core::Fail(job.At("command", "expected the entrypoint: [python, job.py]"));
  request.submission_id = job.Str("submission-id");
  request.runtime_env_file = Relative(settings, job.Str("runtime-env"));
  if (job.Has("runtime-env-json")) request.runtime_env_json = job.value()["runtime-env-json"].dump();
  const std::string dir = job.Str("working-dir");
  // A remote URI (gs://...) is the job's as given; a directory is beside the stack file.
  request.working_dir = dir.find("://") == std::string::npos ? Relative(settings, dir) : dir;
  if (job.Has("metadata-json")) request.metadata_json = job.value()["metadata-json"].dump();
  for (const auto& [key, member] :
       {std::pair{"entrypoint-num-cpus", &request.num_cpus}, std::pair{"entrypoint-num-gpus", &request.num_gpus},
        std::pair{"entrypoint-memory", &request.memory}}) {
    if (job.Has(key)) *member = job.Str(key);
  }
  if (job.Has("entrypoint-resources")) request.resources_json = job.value()["entrypoint-resources"].dump();
  // As job submit checks its flags (and reads runtime-env's file), before any call.
  std::string local_dir;
  if (auto built = request.Build(local_dir); !built) return core::Fail(job.Reworded(built.error()));
  if (!local_dir.empty() && !std::filesystem::is_directory(local_dir)) {
    return core::Fail(job.At("working-dir", "expected a directory, got '" + local_dir + "'"));
  }
  workload.kind = WorkloadKind::kRayJob;
  workload.tpu_vm = *node;
  workload.job = std::move(request);
  return {};
}

}  // namespace tputrain::workflow::internal
