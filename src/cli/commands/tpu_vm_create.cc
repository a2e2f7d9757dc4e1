// tputrain tpu-vm create: on-demand, Spot, queued or on a reservation, in the first zone with
// capacity, optionally with Ray on every host; multislices through one queued resource.
#include "commands/tpu_vm_create.h"
#include "commands/capacity_flags.h"
#include "commands/commands.h"
#include "commands/ttl_flag.h"
#include "output/output.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/duration.h"
#include "tputrain/core/file.h"
#include "tputrain/core/text.h"
#include "tputrain/core/utf8.h"
#include "tputrain/gcp/labels.h"
#include "tputrain/gcp/names.h"
#include "tputrain/gcp/tpu/client.h"
#include "tputrain/workflow/iap_firewall.h"
#include "tputrain/workflow/tpu_vm_multislice.h"
#include "tputrain/workflow/tpu_vm_ray.h"
#include "tputrain/workflow/tpu_vm_slice.h"

namespace tputrain::cli {
namespace {

core::Result<int> RunCreate(const TpuVmCreateOptions& options, Context& context) {
  auto project = RequireSetting(context, "project");
  if (!project) return core::Fail(project.error());
  // --zones replaces --zone (and the configured one).
  workflow::FailoverFlags failover_flags = options.failover;
  failover_flags.replaced_zone = context.global.location;
  auto zone =
      options.failover.zones.empty() ? RequireSetting(context, "location") : core::Result<std::string>(std::string());
  if (!zone) return core::Fail(zone.error());
  auto failover = workflow::ResolveFailover(failover_flags, *zone);
  if (!failover) return core::Fail(failover.error());
  if (zone->empty()) *zone = failover->auto_zones ? "auto" : failover->zones.front();
  if (auto waits = workflow::CheckAsyncFailover(*failover, options.provision.async); !waits) {
    return core::Fail(waits.error());
  }
  // --zones auto picks zones that offer the type: only the zones named are checked.
  auto offered = workflow::ResolveTpuVmSlice({options.accelerator_type, options.version,
                                              failover->auto_zones
                                                  ? std::vector<std::string>{}
                                                  : (failover->zones.empty() ? std::vector{*zone} : failover->zones),
                                              options.skip_zone_check});
  if (!offered) return core::Fail(offered.error());
  if (options.num_slices < 1 || options.num_slices > 256) {
    return core::Fail(core::Error::Usage("--num-slices: expected 1 to 256, got " + std::to_string(options.num_slices)));
  }
  auto capacity = workflow::ResolveTpuVmCapacity(options.capacity, *project, *zone);
  if (!capacity) return core::Fail(capacity.error());
  const bool multislice = options.num_slices > 1;
  const bool queued = multislice || capacity->queued;
  if (queued && (failover->zones.size() > 1 || failover->retry_until_up || failover->auto_zones)) {
    return core::Fail(core::Error::Usage(
        "--zones: a queued resource waits for capacity in its zone (multislice, --queued, --reservation); give one "
        "zone"));
  }
  if (capacity->queued && !multislice && (options.ray || options.names.size() != 1)) {
    return core::Fail(core::Error::Usage("--queued: one NAME, without --ray"));
  }
  if (multislice && options.names.size() != 1) {
    return core::Fail(core::Error::Usage("--num-slices: one NAME (the slices are NAME-0..NAME-N-1)"));
  }
  // Multislice node ids are NAME-<i>: the name leaves room for the suffix.
  const size_t name_length =
      gcp::kTpuNodeNameLength - (multislice ? std::to_string(options.num_slices - 1).size() + 1 : 0);
  for (const auto& name : options.names) {
    if (auto valid = gcp::CheckResourceId("NAME", name, name_length); !valid) return core::Fail(valid.error());
  }
  auto ray_timeout = core::ParseDuration("--ray-timeout", options.ray_timeout);
  if (!ray_timeout) return core::Fail(ray_timeout.error());
  if (!options.ray && !options.iap_firewall.empty()) {
    return core::Fail(core::Error::Usage("--iap-firewall: only with --ray"));
  }
  auto iap_mode = workflow::ParseIapFirewallMode(
      "--iap-firewall", options.iap_firewall.empty() ? std::string_view("check") : options.iap_firewall);
  if (!iap_mode) return core::Fail(iap_mode.error());
  auto spec = TpuVmSpecOf(options);
  if (!spec) return core::Fail(spec.error());
  spec->spot = capacity->spot;
  spec->reserved = capacity->reserved && !queued;
  // The rule IAP needs to reach the Ray dashboard: checked, created or left alone, first.
  const workflow::IapFirewallRequest iap{*project, spec->network, workflow::kRayDashboardPort, *iap_mode};
  // The token is a secret: never in a dry run's bodies, logs or messages.
  if (options.ray) context.redactor.Hold(spec->metadata.at(workflow::kRayTokenKey));
  const int hosts = catalog::FindSliceType(options.accelerator_type)->hosts;
  if (queued) {
    const workflow::MultisliceCreate request{
        {*project, *zone, options.names.front()}, *spec, multislice ? options.num_slices : 0, capacity->queueing};
    return RunProvision(
        context, options.provision, [&](workflow::ProvisionEnv& env) -> core::Result<std::vector<workflow::Outcome>> {
          if (!options.ray) {
            auto outcome = workflow::CreateMultislice(env, request);
            if (!outcome) return core::Fail(outcome.error());
            return std::vector<workflow::Outcome>{*outcome};
          }
          return workflow::WithIapFirewall(env, iap, [&]() -> core::Result<std::vector<workflow::Outcome>> {
            auto outcome = workflow::CreateRayMultislice(env, request, hosts, *ray_timeout);
            if (!outcome) return core::Fail(outcome.error());
            return std::vector<workflow::Outcome>{*outcome};
          });
        });
  }
  return RunProvision(context, options.provision, [&](workflow::ProvisionEnv& env) {
    auto in_any_zone = [&] {
      return workflow::CreateTpuVmsInAnyZone(env, *failover, *project, options.names, *spec, [&](const auto& vms) {
        return options.ray ? workflow::CreateRayTpuVms(env, vms, hosts, *ray_timeout)
                           : workflow::CreateTpuVms(env, vms);
      });
    };
    return options.ray ? workflow::WithIapFirewall(env, iap, in_any_zone) : in_any_zone();
  });
}

}  // namespace

void SetupTpuVmCreateCommand(CLI::App& tpu_vm, Context& context) {
  auto options = std::make_shared<TpuVmCreateOptions>();
  auto* create = tpu_vm.add_subcommand("create", "Create TPU VM(s); several names are created at once");
  create->add_option("names", options->names, "TPU VM name(s)")->required();
  create->add_option("--accelerator-type", options->accelerator_type, "Slice type (v5p-8, v6e-16)")->required();
  create->add_option("--version", options->version,
                     "TPU software version (default: the generation's, from the catalog)");
  create->add_option("--metadata", options->metadata, "KEY=VALUE metadata")->delimiter(',');
  create->add_option("--metadata-from-file", options->metadata_from_file, "KEY=FILE metadata (startup-script=FILE)")
      ->delimiter(',');
  create->add_option("--labels", options->labels, "KEY=VALUE labels")->delimiter(',');
  AddCapacityFlags(create, options->capacity.capacity, false);
  create->add_flag("--reserved", options->capacity.reserved,
                   "On any matching reservation (gcloud's --reserved); with --queued, the zone's reservations/-");
  AddSkipZoneCheckFlag(create, options->skip_zone_check);
  create->add_flag("--queued", options->capacity.queued,
                   "Through a queued resource that waits for capacity (ACCEPTED, WAITING_FOR_RESOURCES, ACTIVE)");
  create->add_option("--valid-until", options->capacity.valid_until,
                     "--queued: give up waiting after (e.g. 6h; on a --reservation, 1h unless given)");
  create->add_option("--valid-after", options->capacity.valid_after, "--queued: start waiting after (e.g. 1h)");
  AddFailoverFlags(create, options->failover,
                   "On a stockout, try these zones in turn (replaces --zone); auto: the zones that offer the type");
  create->add_option("--num-slices", options->num_slices,
                     "Multislice: N slices NAME-0..NAME-N-1 made together by one queued resource NAME; with --ray "
                     "one Ray cluster spans them");
  create->add_flag("--ray", options->ray,
                   "Start Ray on every host at boot (head on worker 0, token auth) and wait until all joined");
  create->add_option("--ray-version", options->ray_version,
                     "Ray release to pip-install where the image has none (default " +
                         std::string(workflow::kDefaultRayVersion) + ")");
  create->add_option("--setup", options->setup, "With --ray: a script every host runs first")->type_name("FILE");
  create->add_option("--pip", options->pip, "With --ray: packages every host installs (each one pip argument)")
      ->delimiter(',');
  create->add_option("--ray-start-args", options->ray_start_args,
                     "With --ray: more `ray start` arguments, split as a shell would (quotes kept, nothing expanded)");
  create->add_option("--ray-timeout", options->ray_timeout,
                     "With --ray: how long to wait for every host (default 30m)");
  create
      ->add_option("--iap-firewall", options->iap_firewall,
                   "With --ray: the firewall rule letting IAP (35.235.240.0/20) reach Ray's dashboard (tcp 8265): "
                   "check (default: warn when none does), create (ledgered; cleanup deletes it) or skip")
      ->type_name("check|create|skip");
  AddProvisionFlags(create, options->provision);
  AddRecreateFlag(create, options->provision);
  AddTtlFlag(create, options->provision);
  create->footer(
      "Examples:\n  tputrain tpu-vm create v5p-node --zone us-east5-a --accelerator-type v5p-8\n"
      "  tputrain tpu-vm create ray-tpu --zone us-east5-a --accelerator-type v6e-16 --ray --pip jax[tpu]\n"
      "  tputrain tpu-vm create ms --zone us-east5-a --accelerator-type v5p-16 --num-slices 2 --ray");
  create->callback([options, &context] { context.outcome = RunCreate(*options, context); });
}

}  // namespace tputrain::cli
