// tputrain iam (workload identity, service accounts).
#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "commands/provision_common.h"
#include "tputrain/workflow/provision_requests.h"

namespace tputrain::cli {
namespace {

struct IamOptions {
  std::string ksa;
  std::string bucket;
  bool project_role = false;
  std::string gsa;
  std::string role;
  std::string account;
  std::string display_name;
  std::vector<std::string> roles;
  ProvisionFlags provision;
  bool annotate_ksa = false;
  KubeAccessFlags access;  // where the KSA lives, for --annotate-ksa
};

core::Result<int> RunBindWorkloadIdentity(const IamOptions& options, Context& context) {
  const workflow::WorkloadIdentityRequest request{options.ksa, options.bucket, options.project_role,
                                                  options.gsa, options.role,   options.annotate_ksa};
  return RunProvision(context, options.provision, workflow::WorkloadIdentityBinding{request, options.access});
}

core::Result<int> RunServiceAccountCreate(const IamOptions& options, Context& context) {
  return RunProvision(context, options.provision,
                      workflow::ServiceAccountCreateRequest{"", options.account, options.display_name, options.roles});
}
}  // namespace

void SetupIamCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<IamOptions>();
  auto* iam = root.add_subcommand("iam", "IAM for workloads: workload identity and service accounts");
  iam->require_subcommand(1);
  auto* bind = iam->add_subcommand("bind-workload-identity", "Grant a Kubernetes service account a role");
  bind->add_option("--ksa", options->ksa, "Kubernetes service account NAMESPACE/NAME")->required();
  bind->add_option("--bucket", options->bucket, "Grant the role on this bucket");
  bind->add_flag("--project-role", options->project_role, "Grant the role on the project");
  bind->add_option("--gsa", options->gsa,
                   "Let the KSA act as this Google service account (roles/iam.workloadIdentityUser)");
  bind->add_option("--role", options->role, "Role (roles/storage.objectUser)");
  AddProvisionFlags(bind, options->provision, /*waits=*/false);
  bind->footer(
      "Examples:\n"
      "  tputrain iam bind-workload-identity --ksa default/ray-ksa --bucket my-ckpt --role roles/storage.objectUser\n"
      "  tputrain iam bind-workload-identity --ksa default/sax-sa --gsa sax@PROJECT.iam.gserviceaccount.com \\\n"
      "      --annotate-ksa --cluster ray-tpu --location us-east5-b\n"
      "Pods on node pools with --workload-metadata GCE_METADATA (the JetStream tutorial's TPU pool) act as the node's\n"
      "service account: neither route applies to them.");
  bind->add_flag("--annotate-ksa", options->annotate_ksa,
                 "With --gsa: annotate the KSA iam.gke.io/gcp-service-account=GSA (creating it if missing)");
  AddKubeAccessFlags(*bind, options->access);
  bind->callback([options, &context] { context.outcome = RunBindWorkloadIdentity(*options, context); });

  auto* account = iam->add_subcommand("service-account", "Google service accounts");
  account->require_subcommand(1);
  auto* create = account->add_subcommand("create", "Create a service account, with project roles");
  create->add_option("name", options->account, "Account id (6-30 characters)")->required();
  create->add_option("--display-name", options->display_name, "Display name");
  create->add_option("--role", options->roles, "Project role to grant the account (repeatable)");
  AddProvisionFlags(create, options->provision, /*waits=*/false);
  create->footer("Example:\n  tputrain iam service-account create sax-sa --role roles/storage.objectUser");
  create->callback([options, &context] { context.outcome = RunServiceAccountCreate(*options, context); });
}
}  // namespace tputrain::cli
