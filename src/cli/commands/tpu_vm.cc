// tputrain tpu-vm create|delete|list|describe (Cloud TPU tpu/v2).
#include "commands/capacity_flags.h"
#include "commands/commands.h"
#include "commands/provision_common.h"
#include "commands/ttl_flag.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/cli/output.h"
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

namespace tputrain::cli {
namespace {

struct TpuVmOptions {
  std::vector<std::string> names;
  std::string accelerator_type;
  std::string version;
  std::vector<std::string> metadata;
  std::vector<std::string> metadata_from_file;
  std::vector<std::string> labels;
  workflow::TpuVmCapacityFlags capacity;
  workflow::FailoverFlags failover;
  int num_slices = 1;  // >1: one queued resource making NAME-0..NAME-N-1 (multislice)
  // --ray: Ray started on every host at boot (seed 004), awaited through the hosts' reports.
  bool ray = false;
  std::string ray_version = workflow::kDefaultRayVersion;
  std::string setup;  // FILE
  std::vector<std::string> pip;
  std::string ray_start_args;
  std::string ray_timeout = "30m";
  std::string iap_firewall;  // --iap-firewall check|create|skip; "" is check (with --ray)
  ProvisionFlags provision;
};

core::Result<gcp::tpu::NodeSpec> SpecOf(const TpuVmOptions& options) {
  auto slice = catalog::FindSliceType(options.accelerator_type);
  if (!slice) return core::Fail(core::Error::Usage("--accelerator-type: " + slice.error().message));
  gcp::tpu::NodeSpec spec;
  spec.accelerator_type = slice->accelerator_type;
  spec.runtime_version = options.version.empty() ? slice->generation->tpu_vm_runtime_version : options.version;
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
  auto labels = gcp::ParseLabels("--labels", options.labels, {workflow::kRunLabel});
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
    auto text = core::ReadFile(options.setup, "--setup", 256 * 1024);  // one metadata value's limit
    if (!text) return core::Fail(text.error());
    boot.setup = std::move(*text);
  }
  boot.token = workflow::NewRayToken();
  boot.slices = options.num_slices;
  auto with_ray = workflow::RayMetadata(boot, spec.metadata);
  if (!with_ray) return core::Fail(with_ray.error());
  spec.metadata = std::move(*with_ray);
  return spec;
}

core::Result<int> RunCreate(const TpuVmOptions& options, Context& context) {
  auto project = RequireSetting(context, "project");
  if (!project) return core::Fail(project.error());
  // --zones replaces --zone (and the configured one).
  auto zone = options.failover.zones.empty() ? RequireSetting(context, "location")
                                             : core::Result<std::string>(options.failover.zones.front());
  if (!zone) return core::Fail(zone.error());
  auto failover = workflow::ResolveFailover(options.failover, *zone);
  if (!failover) return core::Fail(failover.error());
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
  auto spec = SpecOf(options);
  if (!spec) return core::Fail(spec.error());
  spec->spot = capacity->spot;
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

core::Result<int> RunDelete(const TpuVmOptions& options, Context& context) {
  auto project = RequireSetting(context, "project");
  if (!project) return core::Fail(project.error());
  auto zone = RequireSetting(context, "location");
  if (!zone) return core::Fail(zone.error());
  for (const auto& name : options.names) {
    if (auto valid = gcp::CheckResourceId("NAME", name, gcp::kTpuNodeNameLength); !valid)
      return core::Fail(valid.error());
  }
  std::string names;
  for (const auto& name : options.names) names += (names.empty() ? "" : ", ") + name;
  auto confirmed = ConfirmDelete(context, options.provision.yes, "tpu-vm delete",
                                 "Delete TPU VM(s) " + names + " in " + *zone + "?");
  if (!confirmed) return core::Fail(confirmed.error());
  if (!*confirmed) return NothingDeleted(context);
  return RunProvision(context, options.provision,
                      [&](workflow::ProvisionEnv& env) -> core::Result<std::vector<workflow::Outcome>> {
                        std::vector<workflow::Outcome> outcomes;
                        for (const auto& name : options.names) {
                          auto outcome = workflow::DeleteTpuVmOrSlices(env, {*project, *zone, name});
                          if (!outcome) return core::Fail(outcome.error());
                          outcomes.push_back(*outcome);
                        }
                        // The run's IAP rule goes with its last TPU VM.
                        auto rules = workflow::DeleteUnusedIapFirewalls(env);
                        if (!rules) return core::Fail(rules.error());
                        outcomes.insert(outcomes.end(), rules->begin(), rules->end());
                        return outcomes;
                      });
}

core::Result<int> RunRead(const TpuVmOptions& options, Context& context, bool list) {
  auto project = RequireSetting(context, "project");
  if (!project) return core::Fail(project.error());
  auto location = LocationOrAll(context);
  if (!location) return core::Fail(location.error());
  const std::string& zone = *location;
  if (!list && zone == "-") return core::Fail(core::Error::Usage("--zone: required"));
  if (!list) {
    auto valid = gcp::CheckResourceId("NAME", options.names.front(), gcp::kTpuNodeNameLength);
    if (!valid) return core::Fail(valid.error());
  }
  return RunRead(
      context, [&](http::Transport& transport, const workflow::ApiEndpoints& endpoints) -> core::Result<int> {
        gcp::tpu::Client client(transport, endpoints.tpu);
        if (!list) {
          auto node = client.GetNode({*project, zone, options.names.front()});
          if (!node) return core::Fail(node.error());
          const auto shown = workflow::WithoutRayToken(node->raw);
          PrintResult(context, shown, [&](std::ostream& out) { out << ToYaml(shown); });
          return core::kExitOk;
        }
        auto nodes = client.ListNodes(*project, zone);
        if (!nodes) return core::Fail(nodes.error());
        nlohmann::json json = nlohmann::json::array();
        std::vector<std::vector<std::string>> rows;
        for (const auto& node : *nodes) {
          json.push_back(workflow::WithoutRayToken(node.raw));
          rows.push_back(
              {node.name.substr(node.name.rfind('/') + 1), node.accelerator_type, node.runtime_version, node.state});
        }
        PrintResult(context, json, [&](std::ostream& out) {
          PrintTable(out, {"name", "accelerator_type", "version", "state"}, rows);
        });
        return core::kExitOk;
      });
}

core::Result<int> RunRayStatus(const TpuVmOptions& options, Context& context) {
  auto project = RequireSetting(context, "project");
  if (!project) return core::Fail(project.error());
  auto zone = RequireSetting(context, "location");
  if (!zone) return core::Fail(zone.error());
  const std::string& name = options.names.front();
  if (auto valid = gcp::CheckResourceId("NAME", name, gcp::kTpuNodeNameLength); !valid)
    return core::Fail(valid.error());
  return RunRead(context,
                 [&](http::Transport& transport, const workflow::ApiEndpoints& endpoints) -> core::Result<int> {
                   gcp::tpu::Client client(transport, endpoints.tpu);
                   auto nodes = workflow::TpuVmRayStatus(client, {*project, *zone, name});
                   if (!nodes) return core::Fail(nodes.error());
                   nlohmann::json json = nlohmann::json::array();
                   std::vector<std::vector<std::string>> rows;
                   for (const auto& node : *nodes) {
                     for (const auto& host : node.hosts) {
                       const std::string state(workflow::RayHostStateName(host.state));
                       json.push_back({{"node", node.node},
                                       {"worker", host.worker},
                                       {"state", state},
                                       {"ray_version", host.ray_version},
                                       {"message", host.message}});
                       rows.push_back({node.node, host.worker, state, host.ray_version.empty() ? "-" : host.ray_version,
                                       host.message.empty() ? "-" : host.message});
                     }
                   }
                   PrintResult(context, json, [&](std::ostream& out) {
                     PrintTable(out, {"node", "worker", "state", "ray", "message"}, rows);
                   });
                   return core::kExitOk;
                 });
}

}  // namespace

void SetupTpuVmCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<TpuVmOptions>();
  auto* tpu_vm = root.add_subcommand("tpu-vm", "Cloud TPU VMs");
  tpu_vm->require_subcommand(1);

  auto* create = tpu_vm->add_subcommand("create", "Create TPU VM(s); several names are created at once");
  create->add_option("names", options->names, "TPU VM name(s)")->required();
  create->add_option("--accelerator-type", options->accelerator_type, "Slice type (v5p-8, v6e-16)")->required();
  create->add_option("--version", options->version,
                     "TPU software version (default: the generation's, from the catalog)");
  create->add_option("--metadata", options->metadata, "KEY=VALUE metadata")->delimiter(',');
  create->add_option("--metadata-from-file", options->metadata_from_file, "KEY=FILE metadata (startup-script=FILE)")
      ->delimiter(',');
  create->add_option("--labels", options->labels, "KEY=VALUE labels")->delimiter(',');
  AddCapacityFlags(create, options->capacity.capacity, false);
  create->add_flag("--queued", options->capacity.queued,
                   "Through a queued resource that waits for capacity (ACCEPTED, WAITING_FOR_RESOURCES, ACTIVE)");
  create->add_option("--valid-until", options->capacity.valid_until, "--queued: give up waiting after (e.g. 6h)");
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

  auto* remove = tpu_vm->add_subcommand("delete", "Delete TPU VM(s), or the slices made with --num-slices NAME");
  remove->add_option("names", options->names, "TPU VM name(s)")->required();
  AddProvisionFlags(remove, options->provision);
  AddYesFlag(remove, options->provision.yes);
  remove->footer("Example:\n  tputrain tpu-vm delete v5p-node --zone us-east5-a --yes");
  remove->callback([options, &context] { context.outcome = RunDelete(*options, context); });

  auto* describe = tpu_vm->add_subcommand("describe", "Show a TPU VM");
  describe->add_option("names", options->names, "TPU VM name")->required()->expected(1);
  describe->footer("Example:\n  tputrain tpu-vm describe v5p-node --zone us-east5-a --format json");
  describe->callback([options, &context] { context.outcome = RunRead(*options, context, false); });

  auto* ray_status = tpu_vm->add_subcommand("ray-status", "Each host's Ray, as it reported it (guest attributes)");
  ray_status->add_option("names", options->names, "TPU VM name")->required()->expected(1);
  ray_status->footer("Example:\n  tputrain tpu-vm ray-status ray-tpu --zone us-east5-a");
  ray_status->callback([options, &context] { context.outcome = RunRayStatus(*options, context); });

  auto* list = tpu_vm->add_subcommand("list", "List TPU VMs (every zone unless --zone)");
  list->footer("Example:\n  tputrain tpu-vm list --zone us-east5-a");
  list->callback([options, &context] { context.outcome = RunRead(*options, context, true); });

  SetupTpuVmTunnelCommand(*tpu_vm, context);
  SetupTpuVmExecCommand(*tpu_vm, context);
}

}  // namespace tputrain::cli
