// tputrain bucket create|delete.
#include "commands/commands.h"
#include "commands/provision_common.h"
#include "tputrain/workflow/provision_requests.h"

namespace tputrain::cli {
namespace {

struct BucketOptions {
  std::string name;
  std::string location;
  std::string storage_class;
  bool uniform = false;
  bool force = false;
  ProvisionFlags provision;
};

core::Result<int> RunBucketCreate(const BucketOptions& options, Context& context) {
  return RunProvision(
      context, options.provision,
      workflow::BucketCreateRequest{options.name, options.location, options.storage_class, options.uniform});
}

core::Result<int> RunBucketDelete(const BucketOptions& options, Context& context) {
  return RunProvision(context, options.provision, workflow::BucketDeletion{options.name, options.force},
                      "bucket delete");
}
}  // namespace

void SetupBucketCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<BucketOptions>();
  auto* bucket = root.add_subcommand("bucket", "Cloud Storage buckets");
  bucket->require_subcommand(1);
  auto* create = bucket->add_subcommand("create", "Create a bucket");
  create->add_option("name", options->name, "Bucket (NAME or gs://NAME)")->required();
  create->add_option("--default-storage-class,--storage-class", options->storage_class, "STANDARD, NEARLINE, ...");
  create->add_option("--bucket-location", options->location, "Bucket location (us-east5, US); default: the server's");
  create->add_flag("--uniform-bucket-level-access", options->uniform, "Uniform bucket-level access");
  AddProvisionFlags(create, options->provision, /*waits=*/false);
  create->footer(
      "Example:\n  tputrain bucket create gs://my-ckpt --bucket-location us-east5 --uniform-bucket-level-access");
  create->callback([options, &context] { context.outcome = RunBucketCreate(*options, context); });
  auto* remove = bucket->add_subcommand("delete", "Delete a bucket");
  remove->add_option("name", options->name, "Bucket (NAME or gs://NAME)")->required();
  remove->add_flag("--force", options->force, "Delete the bucket's objects (every version) first");
  AddProvisionFlags(remove, options->provision, /*waits=*/false);
  AddYesFlag(remove, options->provision.yes);
  remove->footer("Example:\n  tputrain bucket delete gs://my-ckpt --force --yes");
  remove->callback([options, &context] { context.outcome = RunBucketDelete(*options, context); });
}
}  // namespace tputrain::cli
