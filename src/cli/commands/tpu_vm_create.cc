// tputrain tpu-vm create: on-demand, Spot, queued or on a reservation, in the first zone with
// capacity, optionally with Ray on every host; multislices through one queued resource.
#include "tputrain/workflow/tpu_vm_create.h"
#include "commands/commands.h"
#include "commands/provision_common.h"
#include "commands/ttl_flag.h"
#include "flags/capacity_flags.h"
#include "output/output.h"

namespace tputrain::cli {
namespace {

struct TpuVmCreateOptions {
  workflow::TpuVmCreateRequest request;
  ProvisionFlags provision;
};

core::Result<int> RunCreate(const TpuVmCreateOptions& options, Context& context) {
  return RunProvision(context, options.provision, workflow::TpuVmCreation{options.request, context.global.location});
}

}  // namespace

void SetupTpuVmCreateCommand(CLI::App& tpu_vm, Context& context) {
  auto options = std::make_shared<TpuVmCreateOptions>();
  auto* create = tpu_vm.add_subcommand("create", "Create TPU VM(s); several names are created at once");
  create->add_option("names", options->request.names, "TPU VM name(s)")->required();
  create->add_option("--accelerator-type", options->request.accelerator_type, "Slice type (v5p-8, v6e-16)")->required();
  create->add_option("--version", options->request.version,
                     "TPU software version (default: the generation's, from the catalog)");
  create->add_option("--metadata", options->request.metadata, "KEY=VALUE metadata")->delimiter(',');
  create
      ->add_option("--metadata-from-file", options->request.metadata_from_file,
                   "KEY=FILE metadata (startup-script=FILE)")
      ->delimiter(',');
  create->add_option("--labels", options->request.labels, "KEY=VALUE labels")->delimiter(',');
  AddCapacityFlags(create, options->request.capacity.capacity, false);
  create->add_flag("--reserved", options->request.capacity.reserved,
                   "On any matching reservation (gcloud's --reserved); with --queued, the zone's reservations/-");
  AddSkipZoneCheckFlag(create, options->request.skip_zone_check);
  create->add_flag("--queued", options->request.capacity.queued,
                   "Through a queued resource that waits for capacity (ACCEPTED, WAITING_FOR_RESOURCES, ACTIVE)");
  create->add_option("--valid-until", options->request.capacity.valid_until,
                     "--queued: give up waiting after (e.g. 6h; on a --reservation, 1h unless given)");
  create->add_option("--valid-after", options->request.capacity.valid_after, "--queued: start waiting after (e.g. 1h)");
  AddFailoverFlags(create, options->request.failover,
                   "On a stockout, try these zones in turn (replaces --zone); auto: the zones that offer the type");
  create->add_option("--num-slices", options->request.num_slices,
                     "Multislice: N slices NAME-0..NAME-N-1 made together by one queued resource NAME; with --ray "
                     "one Ray cluster spans them");
  create->add_flag("--ray", options->request.ray,
                   "Start Ray on every host at boot (head on worker 0, token auth) and wait until all joined");
  create->add_option("--ray-version", options->request.ray_version,
                     "Ray release to pip-install where the image has none (default " +
                         std::string(workflow::kDefaultRayVersion) + ")");
  create->add_option("--setup", options->request.setup, "With --ray: a script every host runs first")
      ->type_name("FILE");
  create->add_option("--pip", options->request.pip, "With --ray: packages every host installs (each one pip argument)")
      ->delimiter(',');
  create->add_option("--ray-start-args", options->request.ray_start_args,
                     "With --ray: more `ray start` arguments, split as a shell would (quotes kept, nothing expanded)");
  create->add_option("--ray-timeout", options->request.ray_timeout,
                     "With --ray: how long to wait for every host (default 30m)");
  create
      ->add_option("--iap-firewall", options->request.iap_firewall,
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
