// tputrain image build: what `gcloud builds submit --tag IMAGE DIR` does, for the image a
// workload runs (`tputrain render maxtext-ray-image -o DIR` writes its Dockerfile).
#include "commands/commands.h"
#include "commands/provision_common.h"
#include "output/output.h"
#include "tputrain/workflow/image_build.h"
#include "tputrain/workflow/provision_requests.h"

namespace tputrain::cli {
namespace {

struct ImageBuildOptions {
  std::string context_dir = ".";
  std::string tag;
  std::string build_timeout;
  std::string max_context_size = "1GiB";
  bool async = false;
  ProvisionFlags provision;
};

core::Result<int> RunBuild(ImageBuildOptions& options, Context& context) {
  options.provision.async = options.async;
  workflow::ImageBuilding building{
      {"", "", options.context_dir, options.tag, options.build_timeout, options.max_context_size}, nullptr};
  if (!context.global.quiet) {
    building.on_log = [&context](std::string_view text) {
      context.err << context.redactor(std::string(text)) << std::flush;
    };
  }
  return RunProvision(context, options.provision, building, "", [&](const workflow::ProvisionResult& result) {
    const nlohmann::json json = workflow::ToJson(result.run_id, *result.image);
    PrintResult(context, json, [&](std::ostream& out) {
      // The one line a script wants: the image by digest (or the started build under --async).
      out << json.value("image_by_digest", result.image->build_name) << "\n";
    });
  });
}

}  // namespace

void SetupImageCommand(CLI::App& root, Context& context) {
  auto options = std::make_shared<ImageBuildOptions>();
  auto* image = root.add_subcommand("image", "Container images for the workloads, built by Cloud Build");
  image->require_subcommand(1);
  auto* build = image->add_subcommand(
      "build", "Build DIR's Dockerfile with Cloud Build and push it to Artifact Registry (gcloud builds submit --tag)");
  build->add_option("dir", options->context_dir, "Build context: a directory with a Dockerfile (default: .)")
      ->type_name("DIR");
  build->add_option("-t,--tag", options->tag, "Image to push: LOCATION-docker.pkg.dev/PROJECT/REPOSITORY/IMAGE[:TAG]")
      ->required();
  build->add_option("--timeout", options->build_timeout,
                    "The build's own limit (e.g. 45m); Cloud Build ends it with TIMEOUT (default: 10m)");
  build->add_option("--max-context-size", options->max_context_size,
                    "Refuse a context larger than this, before uploading (default: 1GiB)");
  build->add_flag("--async", options->async, "Return once the build has started");
  AddProvisionFlags(build, options->provision, /*waits=*/false);
  build->footer(
      "The context honours .gcloudignore (else .gitignore, as gcloud does). The log streams to stderr; stdout\n"
      "gets IMAGE@sha256:DIGEST, which `tputrain submit --cluster` uses when --image is not given.\n"
      "Example:\n"
      "  tputrain render maxtext-ray-image -o image/\n"
      "  tputrain image build image/ --tag us-east5-docker.pkg.dev/my-project/tputrain/ray-maxtext:latest");
  build->callback([options, &context] { context.outcome = RunBuild(*options, context); });
}

}  // namespace tputrain::cli
