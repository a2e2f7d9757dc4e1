// tpu-vm create: the request checked into a plan, and the plan made.
#include "tputrain/workflow/tpu_vm_create.h"

#include "tpu_vm_multislice.h"
#include "tpu_vm_node_spec.h"
#include "tpu_vm_slice.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/duration.h"
#include "tputrain/gcp/names.h"

namespace tputrain::workflow {

core::Result<TpuVmCreatePlan> PlanTpuVmCreate(const TpuVmCreateRequest& request) {
  TpuVmCreatePlan plan;
  plan.project = request.project;
  plan.zone = request.zone;
  auto failover = ResolveFailover(request.failover, plan.zone);
  if (!failover) return core::Fail(failover.error());
  plan.failover = std::move(*failover);
  if (plan.zone.empty()) plan.zone = plan.failover.auto_zones ? "auto" : plan.failover.zones.front();
  if (auto waits = CheckAsyncFailover(plan.failover, request.async); !waits) return core::Fail(waits.error());
  // --zones auto picks zones that offer the type: only the zones named are checked.
  auto offered = ResolveTpuVmSlice({request.accelerator_type, request.version,
                                    plan.failover.auto_zones
                                        ? std::vector<std::string>{}
                                        : (plan.failover.zones.empty() ? std::vector{plan.zone} : plan.failover.zones),
                                    request.skip_zone_check});
  if (!offered) return core::Fail(offered.error());
  if (request.num_slices < 1 || request.num_slices > 256) {
    return core::Fail(core::Error::Usage("--num-slices: expected 1 to 256, got " + std::to_string(request.num_slices)));
  }
  auto capacity = ResolveTpuVmCapacity(request.capacity, plan.project, plan.zone);
  if (!capacity) return core::Fail(capacity.error());
  plan.capacity = std::move(*capacity);
  const bool multislice = request.num_slices > 1;
  const bool queued = multislice || plan.capacity.queued;
  if (queued && (plan.failover.zones.size() > 1 || plan.failover.retry_until_up || plan.failover.auto_zones)) {
    return core::Fail(core::Error::Usage(
        "--zones: a queued resource waits for capacity in its zone (multislice, --queued, --reservation); give one "
        "zone"));
  }
  if (plan.capacity.queued && !multislice && (request.ray || request.names.size() != 1)) {
    return core::Fail(core::Error::Usage("--queued: one NAME, without --ray"));
  }
  if (multislice && request.names.size() != 1) {
    return core::Fail(core::Error::Usage("--num-slices: one NAME (the slices are NAME-0..NAME-N-1)"));
  }
  // Multislice node ids are NAME-<i>: the name leaves room for the suffix.
  const size_t name_length =
      gcp::kTpuNodeNameLength - (multislice ? std::to_string(request.num_slices - 1).size() + 1 : 0);
  for (const auto& name : request.names) {
    if (auto valid = gcp::CheckResourceId("NAME", name, name_length); !valid) return core::Fail(valid.error());
  }
  plan.names = request.names;
  auto ray_timeout = core::ParseDuration("--ray-timeout", request.ray_timeout);
  if (!ray_timeout) return core::Fail(ray_timeout.error());
  plan.ray_timeout = *ray_timeout;
  if (!request.ray && !request.iap_firewall.empty()) {
    return core::Fail(core::Error::Usage("--iap-firewall: only with --ray"));
  }
  auto iap_mode = ParseIapFirewallMode("--iap-firewall",
                                       request.iap_firewall.empty() ? std::string_view("check") : request.iap_firewall);
  if (!iap_mode) return core::Fail(iap_mode.error());
  auto spec = TpuVmNodeSpecOf(request);
  if (!spec) return core::Fail(spec.error());
  plan.spec = std::move(*spec);
  plan.spec.spot = plan.capacity.spot;
  plan.spec.reserved = plan.capacity.reserved && !queued;
  // The rule IAP needs to reach the Ray dashboard: checked, created or left alone, first.
  plan.iap = {plan.project, plan.spec.network, kRayDashboardPort, *iap_mode};
  plan.ray = request.ray;
  if (plan.ray) plan.ray_token = plan.spec.metadata.at(kRayTokenKey);
  plan.num_slices = request.num_slices;
  plan.hosts = catalog::FindSliceType(request.accelerator_type)->hosts;
  return plan;
}

core::Result<std::vector<Outcome>> CreatePlannedTpuVms(ProvisionEnv& env, const TpuVmCreatePlan& plan) {
  const bool multislice = plan.num_slices > 1;
  if (multislice || plan.capacity.queued) {
    const MultisliceCreate request{{plan.project, plan.zone, plan.names.front()},
                                   plan.spec,
                                   multislice ? plan.num_slices : 0,
                                   plan.capacity.queueing};
    if (!plan.ray) {
      auto outcome = CreateMultislice(env, request);
      if (!outcome) return core::Fail(outcome.error());
      return std::vector<Outcome>{*outcome};
    }
    return WithIapFirewall(env, plan.iap, [&]() -> core::Result<std::vector<Outcome>> {
      auto outcome = CreateRayMultislice(env, request, plan.hosts, plan.ray_timeout);
      if (!outcome) return core::Fail(outcome.error());
      return std::vector<Outcome>{*outcome};
    });
  }
  auto in_any_zone = [&] {
    return CreateTpuVmsInAnyZone(env, plan.failover, plan.project, plan.names, plan.spec, [&](const auto& vms) {
      return plan.ray ? CreateRayTpuVms(env, vms, plan.hosts, plan.ray_timeout) : CreateTpuVms(env, vms);
    });
  };
  return plan.ray ? WithIapFirewall(env, plan.iap, in_any_zone) : in_any_zone();
}

}  // namespace tputrain::workflow
