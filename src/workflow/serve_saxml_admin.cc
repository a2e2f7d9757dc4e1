// Saxml's presets, and what is asked of sax-http besides generate: a model's state, its
// unpublishing, and `serve down`.
#include "saxml_render.h"
#include "serve_engines.h"
#include "serve_flow.h"
#include "template_values.h"
#include "tputrain/k8s/manifest.h"
#include "tputrain/k8s/service_proxy.h"
#include "tputrain/render/render.h"
#include "tputrain/workflow/serve_saxml.h"

namespace tputrain::workflow {
namespace {

// Seed 003's model: LmCloudSpmd175B32Test, the 175B servable with random weights (test mode,
// checkpoint "None") on a 32-chip mesh ([1, 1, 32]): one v5e 4x8 slice per replica.
const std::vector<SaxmlPreset>& Presets() {
  static const std::vector<SaxmlPreset> presets = {
      {"saxml-175b-test",
       {"/sax/test/spmd", "saxml.server.pax.lm.params.lm_cloud.LmCloudSpmd175B32Test", "None", 2},
       "v5litepod-32",
       175e9},
  };
  return presets;
}

core::Result<http::Response> Ask(const ServeEndpoint& endpoint, http::Request request) {
  request.timeout = endpoint.timeout;
  auto response = endpoint.transport.Send(request);
  if (!response) return core::Fail(response.error());
  if (response->status != 200) return core::Fail(serving::SaxHttpError(*response));
  return response;
}

}  // namespace

core::Result<SaxmlPreset> FindSaxmlPreset(const std::string& name) {
  std::string known;
  for (const auto& preset : Presets()) {
    if (preset.name == name) return preset;
    known += (known.empty() ? "" : ", ") + preset.name;
  }
  return core::Fail(core::Error::Usage("--model: " + name + " is no Saxml model tputrain serves; known: " + known +
                                       " (or --model-path with --sax-model for another servable)"));
}

bool IsSaxmlPreset(const std::string& name) { return static_cast<bool>(FindSaxmlPreset(name)); }

core::Result<std::string> SaxModelIdOf(const std::string& flag, const std::string& value) {
  if (auto preset = FindSaxmlPreset(value.empty() ? "saxml-175b-test" : value)) return preset->model.id;
  if (auto valid = serving::CheckSaxModelId(flag, value); !valid) return core::Fail(valid.error());
  return value;
}

std::string SaxHttpEndpoint(const std::string& server, const std::string& ns) {
  auto engine = serving::MakeEngine(serving::EngineKind::kSaxml);
  return k8s::ServiceProxyUrl(server, ns, engine->DefaultService(), std::to_string(engine->DefaultPort()));
}

core::Result<serving::SaxCellEntry> ListSaxModel(const ServeEndpoint& endpoint, const std::string& id) {
  auto response = Ask(endpoint, serving::BuildListCell(endpoint.base_url, id));
  if (!response) return core::Fail(response.error());
  return serving::ParseListCell(*response);
}

core::Result<std::optional<serving::SaxCellEntry>> FindSaxModel(const ServeEndpoint& endpoint, const std::string& id) {
  auto entry = ListSaxModel(endpoint, id);
  if (entry) return std::optional<serving::SaxCellEntry>(std::move(*entry));
  if (entry.error().kind == core::ErrorKind::kNotFound && entry.error().http_status != 404) {
    return std::optional<serving::SaxCellEntry>();
  }
  return core::Fail(entry.error());
}

core::Result<bool> UnpublishSaxModel(const ServeEndpoint& endpoint, const std::string& id) {
  auto response = Ask(endpoint, serving::BuildUnpublish(endpoint.base_url, id));
  if (response) return true;
  if (response.error().kind == core::ErrorKind::kNotFound && response.error().http_status != 404) return false;
  return core::Fail(response.error());
}

core::Result<bool> PublishedByRun(RecordedDeleteEnv& env, const serving::SaxModel& model, const SaxHttpTarget& target) {
  if (env.store == nullptr || env.run_id.empty()) return false;
  auto ledger = env.store->Load(env.run_id);
  if (!ledger) return core::Fail(ledger.error());
  const auto* entry = ledger->Find(state::ResourceKind::kServedModel, ServedModelEntry(model, target).name);
  return entry != nullptr && entry->owned && entry->state != state::EntryState::kDeleted;
}

void RecordUnpublished(RecordedDeleteEnv& env, const serving::SaxModel& model, const SaxHttpTarget& target) {
  if (env.store == nullptr || env.run_id.empty()) return;
  const std::string key = ServedModelEntry(model, target).name;
  auto status = env.store->Update(env.run_id, [&](state::Ledger& ledger) {
    if (auto* entry = ledger.Find(state::ResourceKind::kServedModel, key)) entry->state = state::EntryState::kDeleted;
  });
  if (!status) env.reporter.Warn("run ledger: " + status.error().message);
}

core::Result<SaxmlDownOutcome> SaxmlDown(RecordedDeleteEnv& env, http::Transport& transport,
                                         const SaxmlDownRequest& request) {
  auto render = [&]() -> core::Result<std::vector<k8s::Object>> {
    SaxmlRender values{request.tpu_type, request.replicas, false, request.sets, {}, request.template_dirs};
    if (request.configuration) {
      auto configuration = request.configuration();
      if (!configuration) return core::Fail(configuration.error());
      values.configuration = std::move(*configuration);
    }
    auto rendered = RenderSaxml(values);
    if (!rendered) return core::Fail(rendered.error());
    return std::move(rendered->objects);
  };
  const k8s::DeleteOptions options = serve_flow::DownOptions(request.ns, request.dry_run);
  // What is the run's is settled before anything is sent: a run that holds nothing unpublishes nothing.
  auto doomed = serve_flow::ServedToDelete(env, request.model_id, request.ns, render);
  if (!doomed) return core::Fail(doomed.error());
  const std::string ns = request.ns.empty() ? env.client.default_namespace() : request.ns;
  SaxmlDownOutcome outcome;
  serving::SaxModel model{request.model_id, "", "", 0};
  auto engine = serving::MakeEngine(serving::EngineKind::kSaxml);
  const SaxHttpTarget target{ns, engine->DefaultService(), engine->DefaultPort(), env.access};
  const auto published = PublishedByRun(env, model, target);
  if (!published) return core::Fail(published.error());
  if (!request.dry_run && !*published) {
    outcome.unpublish_note = "not unpublished: run " + env.run_id + " did not publish it";
  } else if (!request.dry_run) {
    ServeEndpoint endpoint{transport, SaxHttpEndpoint(env.client.server(), ns), env.clock, std::chrono::seconds(60)};
    auto unpublished = UnpublishSaxModel(endpoint, request.model_id);
    if (unpublished) {
      outcome.unpublished = *unpublished;
      if (!*unpublished) outcome.unpublish_note = request.model_id + " was not published";
    } else if (unpublished.error().http_status == 404 || unpublished.error().http_status == 503) {
      // The service proxy's own answer: no sax-http to ask; its objects go below all the same.
      outcome.unpublish_note = "not unpublished: " + unpublished.error().message;
      env.reporter.Warn(outcome.unpublish_note + "; its record stays in the cell's sax-root");
    } else {
      return core::Fail(unpublished.error());
    }
    RecordUnpublished(env, model, target);
  }
  auto deleted = serve_flow::DeleteDoomed(env, std::move(*doomed), options);
  if (!deleted) return core::Fail(deleted.error());
  outcome.deleted = std::move(*deleted);
  return outcome;
}

}  // namespace tputrain::workflow
