// tputrain image build: what `gcloud builds submit --tag IMAGE DIR` does, for the image a
// workload runs (`tputrain render maxtext-ray-image -o DIR` writes its Dockerfile).
#include "commands/commands.h"
#include "commands/provision_common.h"
#include "output/output.h"
#include "tputrain/core/duration.h"
#include "tputrain/core/gcp_location.h"
#include "tputrain/core/number.h"
#include "tputrain/workflow/image_build.h"

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

constexpr std::uint64_t kLargestContext = 1ULL << 40;

// Multi-regions hold the regions they are named after: a repository in "us" suits us-east5.
bool RepositoryServes(const std::string& repository_location, const std::string& region) {
  if (repository_location == region) return true;
  const bool multi_region =
      repository_location == "us" || repository_location == "europe" || repository_location == "asia";
  return multi_region && region.rfind(repository_location + "-", 0) == 0;
}

core::Result<workflow::ImageBuildRequest> RequestOf(const ImageBuildOptions& options, Context& context) {
  workflow::ImageBuildRequest request;
  auto image = gcp::artifactregistry::ParseDockerImage("--tag", options.tag);
  if (!image) return core::Fail(image.error());
  request.image = *image;
  auto project = RequireSetting(context, "project");
  if (!project) return core::Fail(project.error());
  request.project = *project;
  // The repository is expected beside the run's other resources: a tag naming another region is
  // a typo more often than a choice, and its push would cross regions.
  auto location = LocationOrAll(context);
  if (!location) return core::Fail(location.error());
  if (*location != "-" && !RepositoryServes(image->location, core::RegionOf(*location))) {
    return core::Fail(core::Error::Usage("--tag: repository " + image->repository + " is in " + image->location +
                                         ", not in the region of --location " + *location + " (" +
                                         core::RegionOf(*location) + "); tag " + core::RegionOf(*location) +
                                         "-docker.pkg.dev/... or pass --location " + image->location));
  }
  if (!options.build_timeout.empty()) {
    auto timeout = core::ParseDuration("--timeout", options.build_timeout);
    if (!timeout) return core::Fail(timeout.error());
    request.timeout = std::to_string(std::chrono::duration_cast<std::chrono::seconds>(*timeout).count()) + "s";
  }
  auto max_size = core::ParseByteSize("--max-context-size", options.max_context_size, kLargestContext);
  if (!max_size) return core::Fail(max_size.error());
  request.max_context_bytes = *max_size;
  request.context_dir = options.context_dir;
  return request;
}

nlohmann::json ResultJson(const std::string& run_id, const workflow::ImageBuildResult& result) {
  nlohmann::json json = {{"run", run_id},
                         {"build_id", result.build_id},
                         {"build", result.build_name},
                         {"status", gcp::cloudbuild::StatusName(result.status)},
                         {"image", result.image},
                         {"digest", result.digest},
                         {"log_url", result.log_url},
                         {"source", result.source},
                         {"files", result.files},
                         {"context_bytes", result.context_bytes},
                         {"archive_bytes", result.archive_bytes}};
  const auto colon = result.image.rfind(':');
  if (!result.digest.empty() && colon != std::string::npos) {
    json["image_by_digest"] = result.image.substr(0, colon) + "@" + result.digest;
  }
  return json;
}

core::Result<int> RunBuild(ImageBuildOptions& options, Context& context) {
  auto request = RequestOf(options, context);
  if (!request) return core::Fail(request.error());
  auto packed = workflow::PackContext(*request);
  if (!packed) return core::Fail(packed.error());
  options.provision.async = options.async;
  workflow::ImageBuildResult built;
  std::function<void(std::string_view)> on_log;
  if (!context.global.quiet) {
    on_log = [&context](std::string_view text) { context.err << context.redactor(std::string(text)) << std::flush; };
  }
  return RunProvision(
      context, options.provision,
      [&](workflow::ProvisionEnv& env) -> core::Result<std::vector<workflow::Outcome>> {
        auto result = workflow::BuildImage(env, *request, *packed, on_log);
        if (!result) return core::Fail(result.error());
        built = *result;
        return result->outcomes;
      },
      [&](const std::string& run_id, const std::vector<workflow::Outcome>&) {
        const nlohmann::json json = ResultJson(run_id, built);
        PrintResult(context, json, [&](std::ostream& out) {
          // The one line a script wants: the image by digest (or the started build under --async).
          out << json.value("image_by_digest", built.build_name) << "\n";
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
