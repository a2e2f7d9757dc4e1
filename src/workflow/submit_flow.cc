#include "tputrain/workflow/submit_flow.h"

#include <algorithm>
#include <optional>

#include "tputrain/k8s/apply.h"
#include "tputrain/render/values.h"

namespace tputrain::workflow {
namespace {

// "Job 'ID' submitted: llama3-8b on v6e-16, run R, 100 steps", before the follow starts.
SubmitCallbacks Reporting(SubmitEnv& env, const MaxTextJob& job) {
  SubmitCallbacks callbacks = env.callbacks;
  callbacks.on_submitted = [&env, &job, inner = env.callbacks.on_submitted](const std::string& id, bool reattached) {
    const std::string where = job.slice ? job.slice->accelerator_type : std::string("CPU");
    env.reporter.Info("Job '" + id + "' " + (reattached ? "was already submitted; re-attached" : "submitted") + ": " +
                      job.model.name + " on " + where + ", run " + job.run_name + ", " + std::to_string(job.steps) +
                      " steps");
    if (inner) inner(id, reattached);
  };
  return callbacks;
}

// Whether a values file names the image. Any other file (KSA_NAME, GS_BUCKET, ...) leaves the
// image to --image or the run's build; one that cannot be read is said by the render, naming it.
bool ValuesNameImage(const std::vector<std::string>& values_files) {
  return std::any_of(values_files.begin(), values_files.end(), [](const std::string& path) {
    auto values = render::LoadValuesFile(path);
    return !values || values->count("DOCKER_IMAGE") > 0;
  });
}

nlohmann::json RayClusterJson(const ClusterSubmitOutcome& outcome) {
  nlohmann::json applied = nlohmann::json::array();
  for (const auto& object : outcome.applied) {
    applied.push_back({{"kind", object.object.kind},
                       {"namespace", object.object.ns},
                       {"name", object.object.name},
                       {"action", std::string(k8s::ApplyActionName(object.action, false))},
                       {"resourceVersion", object.resource_version}});
  }
  return {{"name", outcome.raycluster}, {"namespace", outcome.ns}, {"applied", applied}};
}

core::Status SubmitDirect(SubmitEnv& env, const SubmitRequest& request, SubmitResult& result) {
  if (request.dry_run) {
    result.plan = DescribeJob(result.job);
    return {};
  }
  // The run first: a ledger that cannot record refuses the submit before any connection.
  auto ledger = env.open_ledger();
  if (!ledger) return core::Fail(ledger.error());
  auto ray = env.connect_direct();
  if (!ray) return core::Fail(ray.error());
  const RayJobTarget target = ray->record_as ? *ray->record_as : RayJobTarget::Direct(ray->client->options().address);
  auto outcome =
      SubmitRecorded(*ray->client, result.job, target, *ledger, request.wait, ray->follow, Reporting(env, result.job));
  if (!outcome) return core::Fail(outcome.error());
  result.outcome = std::move(*outcome);
  result.json = OutcomeToJson(result.job, result.outcome);
  return {};
}

core::Status SubmitToRayCluster(SubmitEnv& env, const SubmitRequest& request, SubmitResult& result) {
  RayClusterRequest raycluster = *request.raycluster;
  if (raycluster.name.empty()) raycluster.name = DefaultRayClusterName(result.job);
  const bool image_given = !raycluster.image.empty() || ValuesNameImage(raycluster.values_files) ||
                           std::any_of(raycluster.sets.begin(), raycluster.sets.end(),
                                       [](const std::string& set) { return set.rfind("DOCKER_IMAGE=", 0) == 0; });
  if (!image_given && env.last_built_image) {
    raycluster.image = env.last_built_image();
    if (!raycluster.image.empty())
      env.reporter.Info("image " + raycluster.image + " (built by this run; --image overrides)");
  }
  // The run first: a ledger that cannot record refuses the submit before any connection.
  std::optional<LedgerRecorder> ledger;
  if (!request.dry_run) {
    auto opened = env.open_ledger();
    if (!opened) return core::Fail(opened.error());
    ledger = *opened;
  }
  auto cluster = env.connect_cluster(raycluster.name);
  if (!cluster) return core::Fail(cluster.error());
  ClusterSubmitEnv& cluster_env = *cluster->env;
  if (request.dry_run) {
    auto plan = PlanOnCluster(cluster_env.client, cluster_env.discovery, result.job, raycluster);
    if (!plan) return core::Fail(plan.error());
    result.plan = std::move(*plan);
    return {};
  }
  cluster_env.ledger = *ledger;
  auto outcome =
      SubmitOnCluster(cluster_env, result.job, raycluster, request.wait, cluster->follow, Reporting(env, result.job));
  if (!outcome) {
    core::Error error = outcome.error();
    error.message += "\n  what was applied is recorded in the run ledger: tputrain runs show --run " + ledger->run_id;
    return core::Fail(error);
  }
  result.outcome = std::move(outcome->submit);
  result.json = OutcomeToJson(result.job, result.outcome);
  result.json["raycluster"] = RayClusterJson(*outcome);
  return {};
}

}  // namespace

core::Result<SubmitResult> Submit(SubmitEnv& env, const SubmitRequest& request) {
  auto job = BuildMaxTextJob(request.spec, env.clock);
  if (!job) return core::Fail(job.error());
  SubmitResult result{std::move(*job), std::nullopt, {}, nlohmann::json::object()};
  auto sent = request.raycluster ? SubmitToRayCluster(env, request, result) : SubmitDirect(env, request, result);
  if (!sent) return core::Fail(sent.error());
  return result;
}

}  // namespace tputrain::workflow
