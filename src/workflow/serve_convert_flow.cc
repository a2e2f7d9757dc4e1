// tputrain serve convert from its flags: the configuration, the run and the cluster, then the
// converter followed (serve_convert.cc); and its JSON.
#include "serve_bucket.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/serve_convert.h"

namespace tputrain::workflow {
namespace {

// The Job the converter runs as: the template's, unless --set JOB_NAME= names another (the last).
std::string ConverterJobName(const std::vector<std::string>& sets) {
  std::string job = "checkpoint-converter";
  for (const auto& set : sets) {
    if (set.rfind("JOB_NAME=", 0) == 0) job = set.substr(9);
  }
  return job;
}

}  // namespace

core::Result<ServeConvertOutcome> ServeConvert(Root& root, const ServeConvertFlags& flags,
                                               const std::function<void(std::string_view)>& on_log) {
  if (auto model = ConverterSetsFor(flags.model, ""); !model) return core::Fail(model.error());
  ServeConvertRequest request;
  request.model = flags.model;
  request.sets = flags.sets;
  request.follow = flags.follow;
  request.dry_run = flags.dry_run;
  auto configuration = ServeConfiguration(root, {flags.bucket, flags.sets, "", flags.ledger});
  if (!configuration) return core::Fail(configuration.error());
  request.configuration = std::move(*configuration);
  request.template_dirs = root.TemplateDirs();
  // The run first: a ledger that cannot record refuses the command before any call.
  auto cluster = OpenRecordedApply(root, flags.access, flags.ledger, request.dry_run);
  if (!cluster) return core::Fail(cluster.error());
  request.ns = flags.access.ns;
  ServeConvertEnv env{root.runtime(), (*cluster)->env, on_log};
  auto converted = ServeConvert(env, request);
  if (!converted) {
    core::Error error = converted.error();
    if (error.kind == core::ErrorKind::kCancelled) {
      const std::string ns =
          flags.access.ns.empty() ? (*cluster)->connection->client->default_namespace() : flags.access.ns;
      const std::string job = ConverterJobName(flags.sets);
      error.message = "detached; job/" + job +
                      " keeps running on the cluster. Re-attach with the same command (it applies unchanged and "
                      "follows again), or: tputrain logs -f job/" +
                      job + " -n " + ns;
    }
    return core::Fail(error);
  }
  converted->model = flags.model;
  converted->dry_run = flags.dry_run;
  return converted;
}

nlohmann::json ToJson(const ServeConvertOutcome& outcome) {
  nlohmann::json applied = nlohmann::json::array();
  for (const auto& result : outcome.applied) {
    applied.push_back({{"kind", result.object.kind},
                       {"name", result.object.name},
                       {"action", k8s::ApplyActionName(result.action, outcome.dry_run)}});
  }
  return {{"model", outcome.model},       {"template", kConverterTemplate},   {"namespace", outcome.ns},
          {"job", outcome.job},           {"checkpoint", outcome.checkpoint}, {"reattached", outcome.reattached},
          {"followed", outcome.followed}, {"complete", outcome.complete},     {"applied", applied},
          {"dry_run", outcome.dry_run}};
}

}  // namespace tputrain::workflow
