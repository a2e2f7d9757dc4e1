// tputrain registry create|delete|list|describe: Artifact Registry docker repositories, as gcloud
// artifacts repositories.
#include "commands/commands.h"
#include "commands/provision_common.h"
#include "output/output.h"
#include "tputrain/core/gcp_location.h"
#include "tputrain/core/resource_name.h"
#include "tputrain/workflow/provision_requests.h"
#include "tputrain/workflow/reads.h"

namespace tputrain::cli {
namespace {

struct RegistryOptions {
  std::string name;
  std::string description;
  std::vector<std::string> labels;
  ProvisionFlags provision;
};

core::Result<int> RunCreate(const RegistryOptions& options, Context& context) {
  return RunProvision(context, options.provision,
                      workflow::RepositoryCreateRequest{"", "", options.name, options.description, options.labels});
}

core::Result<int> RunDelete(const RegistryOptions& options, Context& context) {
  return RunProvision(context, options.provision, workflow::RepositoryDeletion{options.name}, "registry delete");
}

core::Result<int> RunDescribe(const RegistryOptions& options, Context& context) {
  auto repositories = workflow::ReadRepositories(context.stack(), {options.name});
  if (!repositories) return core::Fail(repositories.error());
  const auto& raw = repositories->front().raw;
  PrintResult(context, raw, [&](std::ostream& out) { out << ToYaml(raw); });
  return core::kExitOk;
}

core::Result<int> RunList(Context& context) {
  auto repositories = workflow::ReadRepositories(context.stack(), {});
  if (!repositories) return core::Fail(repositories.error());
  nlohmann::json json = nlohmann::json::array();
  std::vector<std::vector<std::string>> rows;
  for (const auto& repository : *repositories) {
    json.push_back(repository.raw);
    rows.push_back({core::LastSegment(repository.name), repository.format,
                    repository.registry_uri.empty() ? "-" : repository.registry_uri});
  }
  PrintResult(context, json, [&](std::ostream& out) {
    // Repositories live in regions: a zone's are its region's.
    PrintListTable(context, out, {"repository", "format", "uri"}, rows,
                   "No repositories in " + core::RegionOf(workflow::ListedWhere(context.stack())) + ".");
  });
  return core::kExitOk;
}

}  // namespace

void SetupRegistryCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<RegistryOptions>();
  auto* registry = root.add_subcommand("registry", "Artifact Registry docker repositories for the workload images");
  registry->require_subcommand(1);
  auto* create = registry->add_subcommand("create", "Create a docker repository (adopts an identical one)");
  create->add_option("name", options->name, "Repository id")->required();
  create->add_option("--description", options->description, "Description");
  create->add_option("--labels", options->labels, "KEY=VALUE labels")->delimiter(',');
  AddProvisionFlags(create, options->provision);
  create->footer("Example:\n  tputrain registry create tputrain --location us-east5");
  create->callback([options, &context] { context.outcome = RunCreate(*options, context); });
  auto* remove = registry->add_subcommand("delete", "Delete a repository and every image in it");
  remove->add_option("name", options->name, "Repository id")->required();
  AddProvisionFlags(remove, options->provision);
  AddYesFlag(remove, options->provision.yes);
  remove->footer("Example:\n  tputrain registry delete tputrain --location us-east5 --yes");
  remove->callback([options, &context] { context.outcome = RunDelete(*options, context); });
  auto* describe = registry->add_subcommand("describe", "Show a repository");
  describe->add_option("name", options->name, "Repository id")->required();
  describe->footer("Example:\n  tputrain registry describe tputrain --location us-east5 --format json");
  describe->callback([options, &context] { context.outcome = RunDescribe(*options, context); });
  auto* list = registry->add_subcommand("list", "List the repositories of a region (--location)");
  list->footer("Example:\n  tputrain registry list --location us-east5 --project my-project");
  list->callback([&context] { context.outcome = RunList(context); });
}

}  // namespace tputrain::cli
