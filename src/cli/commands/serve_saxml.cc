// tputrain serve up|down|list|unpublish for Saxml (seed 003): the seed's four files, then what it
// does with curl against a LoadBalancer IP (publish, listcell, generate, unpublish) done through
// the API server's service proxy instead.
#include "tputrain/workflow/serve_saxml.h"
#include "commands/serve_bucket.h"
#include "commands/serve_flags.h"
#include "output/output.h"
#include "tputrain/core/json.h"
#include "tputrain/core/number.h"
#include "tputrain/workflow/serve_env.h"
#include "tputrain/workflow/tpu_type.h"

namespace tputrain::cli {
namespace {

double Seconds(std::chrono::milliseconds duration) { return static_cast<double>(duration.count()) / 1000.0; }

// The request serve up and serve down share: the preset, overridden by the flags.
core::Result<workflow::SaxmlUpRequest> UpRequestOf(const UpFlags& flags) {
  auto request = workflow::SaxmlRequestOf(
      {flags.model, flags.model_path, flags.sax_model, flags.checkpoint, flags.replicas, flags.tpu_type});
  if (!request) return core::Fail(request.error());
  auto timeout = CheckUpFlags(flags);
  if (!timeout) return core::Fail(timeout.error());
  request->timeout = *timeout;
  request->expose = flags.expose;
  request->sets = flags.sets;
  SetCommonUp(flags, *request);
  return request;
}

void PrintUp(Context& context, const workflow::SaxmlUpOutcome& up, bool dry_run, const std::string& planned_publish) {
  nlohmann::json json = {{"engine", "saxml"},
                         {"model", up.model.id},
                         {"model_path", up.model.model_path},
                         {"checkpoint", up.model.checkpoint},
                         {"replicas", up.model.replicas},
                         {"active_replicas", up.active_replicas},
                         {"tpu_type", up.tpu_type},
                         {"namespace", up.ns},
                         {"jobset", up.jobset},
                         {"service", up.service},
                         {"endpoint", up.endpoint},
                         {"published", up.published},
                         {"serving", up.serving},
                         {"waited_s", Seconds(up.waited)},
                         {"applied", AppliedJson(up.applied, dry_run)},
                         {"dry_run", dry_run}};
  if (!up.ingress.empty()) json["ingress"] = up.ingress;
  if (dry_run) json["would_publish"] = core::ParseJson(planned_publish, "").value_or(planned_publish);
  PrintResult(context, json, [&](std::ostream& out) {
    for (const auto& result : up.applied) {
      out << result.object.Describe() << " " << k8s::ApplyActionName(result.action, dry_run) << "\n";
    }
    if (dry_run) out << "would publish: POST " << up.endpoint << "publish " << planned_publish << "\n";
    if (up.serving) {
      out << "Serving " << up.model.id << " (" << up.model.replicas << " replicas on " << up.tpu_type << ", " << up.ns
          << "/" << up.jobset << ").\nAsk it:  tputrain serve generate --engine saxml -n " << up.ns
          << " --query \"...\"\nEndpoint: " << up.endpoint << "generate (through the API server)\n";
      if (!up.ingress.empty()) out << "LoadBalancer: http://" << up.ingress << ":8888/\n";
    }
  });
}

}  // namespace

core::Result<bool> IsSaxml(const std::string& engine, const std::string& model) {
  if (engine.empty()) return workflow::IsSaxmlPreset(model);
  auto kind = serving::ParseEngine("--engine", engine);
  if (!kind) return core::Fail(kind.error());
  return *kind == serving::EngineKind::kSaxml;
}

core::Result<int> RunSaxmlUp(const UpFlags& flags, Context& context) {
  auto request = UpRequestOf(flags);
  if (!request) return core::Fail(request.error());
  request->dry_run = context.global.dry_run;
  auto configuration = ServeConfiguration(context, {flags.bucket, flags.sets, flags.checkpoint, flags.ledger});
  if (!configuration) return core::Fail(configuration.error());
  request->configuration = std::move(*configuration);
  request->template_dirs = context.stack().TemplateDirs();
  request->ns = flags.access.ns;
  core::Result<workflow::SaxmlUpOutcome> up = core::Fail(core::Error::Internal("serve up did not run"));
  auto ran = WithServeUpEnv(flags, context, request->dry_run, [&](workflow::ServeUpEnv& env) -> core::Status {
    workflow::SaxmlUpEnv saxml{env, env.apply,
                               workflow::OperatorLoaderFor(context.stack(), "jobset", flags.jobset_manifest),
                               env.create_pools, env.transport};
    up = workflow::SaxmlUp(saxml, *request);
    return up ? core::Status{} : core::Fail(up.error());
  });
  if (!ran) return core::Fail(ran.error());
  PrintUp(context, *up, request->dry_run, serving::BuildPublish(up->endpoint, request->model).body);
  return core::kExitOk;
}

core::Result<int> RunSaxmlDown(const DownFlags& flags, Context& context) {
  auto preset = workflow::FindSaxmlPreset(flags.model);
  auto id =
      workflow::SaxModelIdOf("--sax-model", flags.sax_model.empty() && preset ? preset->model.id : flags.sax_model);
  if (!id) return core::Fail(id.error());
  auto replicas = flags.replicas.empty() ? core::Result<int64_t>(preset ? preset->model.replicas : 1)
                                         : core::ParseWhole("--replicas", flags.replicas, 1, 64);
  if (!replicas) return core::Fail(replicas.error());
  if (auto valid = workflow::CheckTpuType("--tpu-type", flags.tpu_type); !valid) return core::Fail(valid.error());
  const std::string tpu_type = !flags.tpu_type.empty() ? flags.tpu_type : preset ? preset->tpu_type : "";
  if (tpu_type.empty()) return core::Fail(core::Error::Usage("--tpu-type: needed for a model that is no preset"));
  auto confirmed = ConfirmDelete(context, flags.yes, "serve down",
                                 "Unpublish " + *id + " and delete the Saxml servers (node pools stay)?");
  if (!confirmed) return core::Fail(confirmed.error());
  if (!*confirmed) return NothingDeleted(context);
  auto run = workflow::RecordedRunOf(context.stack(), {flags.ledger.run_id, flags.ledger.state_dir});
  if (!run) return core::Fail(run.error());
  // BUCKET only to render the template again, for a run whose ledger does not name the model.
  workflow::ConfigurationLoader configuration = [&flags, &context] {
    return ServeConfiguration(context, {flags.bucket, flags.sets, "", flags.ledger});
  };
  workflow::Root& stack = context.stack();
  auto connection = workflow::ConnectCluster(context.stack(), flags.access);
  if (!connection) return core::Fail(connection.error());
  workflow::RecordedDeleteEnv env = workflow::RecordedDeleteEnvOf(context.stack(), flags.access, **connection, *run);
  workflow::SaxmlDownRequest request{*id,
                                     tpu_type,
                                     *replicas,
                                     flags.sets,
                                     configuration,
                                     stack.TemplateDirs(),
                                     flags.access.ns,
                                     context.global.dry_run};
  auto down = workflow::SaxmlDown(env, *(*connection)->transport, request);
  if (!down) return core::Fail(down.error());
  nlohmann::json deleted = nlohmann::json::array();
  for (const auto& result : down->deleted) {
    deleted.push_back({{"kind", result.object.kind}, {"name", result.object.name}, {"deleted", result.existed}});
  }
  nlohmann::json json = {{"model", *id}, {"unpublished", down->unpublished}, {"deleted", deleted}};
  if (!down->unpublish_note.empty()) json["note"] = down->unpublish_note;
  // A dry run sends no unpublish; it says the one it would send, before the deletes.
  const http::Request unpublish = serving::BuildUnpublish(
      workflow::SaxHttpEndpoint((*connection)->client->server(),
                                flags.access.ns.empty() ? (*connection)->client->default_namespace() : flags.access.ns),
      *id);
  if (request.dry_run) json["would_send"] = {{"method", unpublish.method}, {"url", unpublish.url}};
  PrintResult(context, json, [&](std::ostream& out) {
    if (request.dry_run) {
      out << "would send: " << unpublish.method << " " << unpublish.url << " " << unpublish.body << "\n";
    } else {
      out << *id << " " << (down->unpublished ? "unpublished" : down->unpublish_note) << "\n";
    }
    for (const auto& result : down->deleted) {
      out << result.object.Describe() << " " << (result.existed ? "deleted" : "not found") << "\n";
    }
  });
  return core::kExitOk;
}

}  // namespace tputrain::cli
