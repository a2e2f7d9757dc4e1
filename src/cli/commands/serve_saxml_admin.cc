// tputrain serve list / serve unpublish: sax-http's /listcell and /unpublish, through the API
// server's service proxy (the seed's `curl $LB_IP:8888/listcell` and `/unpublish`).
#include "commands/serve_flags.h"
#include "output/output.h"
#include "tputrain/workflow/serve_saxml.h"

namespace tputrain::cli {
namespace {

struct SaxHttpFlags {
  KubeAccessFlags access;
  ProvisionFlags ledger;  // unpublish marks the run's ledger
  std::vector<std::string> models;
  bool yes = false;
};

struct SaxHttp {
  std::unique_ptr<k8s::Connection> connection;
  std::string ns;
  std::string base_url;
  workflow::ServeEndpoint Endpoint(Context& context) const {
    return {*connection->transport, base_url, context.stack().clock(), std::chrono::seconds(60)};
  }
};

core::Result<std::vector<std::string>> ModelIds(const std::vector<std::string>& given) {
  std::vector<std::string> ids;
  for (const auto& model : given.empty() ? std::vector<std::string>{""} : given) {
    auto id = workflow::SaxModelIdOf("--model", model);
    if (!id) return core::Fail(id.error());
    ids.push_back(*id);
  }
  return ids;
}

core::Result<SaxHttp> ReachSaxHttp(const SaxHttpFlags& flags, Context& context) {
  auto connection = workflow::ConnectCluster(context.stack(), flags.access);
  if (!connection) return core::Fail(connection.error());
  SaxHttp reach;
  reach.connection = std::move(*connection);
  reach.ns = flags.access.ns.empty() ? reach.connection->client->default_namespace() : flags.access.ns;
  reach.base_url = workflow::SaxHttpEndpoint(reach.connection->client->server(), reach.ns);
  return reach;
}

core::Result<int> RunList(const SaxHttpFlags& flags, Context& context) {
  auto ids = ModelIds(flags.models);
  if (!ids) return core::Fail(ids.error());
  auto reach = ReachSaxHttp(flags, context);
  if (!reach) return core::Fail(reach.error());
  nlohmann::json json = nlohmann::json::array();
  std::vector<std::vector<std::string>> table;
  for (const auto& id : *ids) {
    auto found = workflow::FindSaxModel(reach->Endpoint(context), id);
    if (!found) return core::Fail(found.error());
    if (!*found) {
      json.push_back({{"model", id}, {"published", false}});
      table.push_back({id, "no", "-", "-", "-"});
      continue;
    }
    const auto& entry = *found;
    json.push_back({{"model", id},
                    {"published", true},
                    {"model_path", entry->model_path},
                    {"checkpoint", entry->checkpoint},
                    {"max_replicas", entry->max_replicas},
                    {"active_replicas", entry->active_replicas}});
    table.push_back({id, "yes", std::to_string(entry->active_replicas) + "/" + std::to_string(entry->max_replicas),
                     entry->model_path, entry->checkpoint});
  }
  PrintResult(context, json, [&](std::ostream& out) {
    PrintTable(out, {"model", "published", "active", "model path", "checkpoint"}, table);
  });
  return core::kExitOk;
}

core::Result<int> RunUnpublish(const SaxHttpFlags& flags, Context& context) {
  auto ids = ModelIds(flags.models);
  if (!ids) return core::Fail(ids.error());
  std::string names;
  for (const auto& id : *ids) names += (names.empty() ? "" : ", ") + id;
  auto confirmed = ConfirmDelete(context, flags.yes, "serve unpublish", "Unpublish " + names + "?");
  if (!confirmed) return core::Fail(confirmed.error());
  if (!*confirmed) return NothingDeleted(context);
  auto reach = ReachSaxHttp(flags, context);
  if (!reach) return core::Fail(reach.error());
  nlohmann::json json = nlohmann::json::array();
  std::string text;
  auto engine = serving::MakeEngine(serving::EngineKind::kSaxml);
  workflow::RecordedDeleteEnv ledger = workflow::RecordedDeleteEnvOf(context.stack(), flags.access, *reach->connection,
                                                                     {flags.ledger.run_id, flags.ledger.state_dir});
  for (const auto& id : *ids) {
    if (context.global.dry_run) {
      const auto planned = serving::BuildUnpublish(reach->base_url, id);
      json.push_back({{"model", id}, {"dry_run", true}, {"request", planned.method + " " + planned.url}});
      text += "would send: " + planned.method + " " + planned.url + " " + planned.body + "\n";
      continue;
    }
    auto unpublished = workflow::UnpublishSaxModel(reach->Endpoint(context), id);
    if (!unpublished) return core::Fail(unpublished.error());
    workflow::RecordUnpublished(ledger, {id, "", "", 0},
                                {reach->ns, engine->DefaultService(), engine->DefaultPort(), ledger.access});
    json.push_back({{"model", id}, {"unpublished", *unpublished}});
    text += id + (*unpublished ? " unpublished\n" : " was not published\n");
  }
  PrintResult(context, json, [&](std::ostream& out) { out << text; });
  return core::kExitOk;
}

}  // namespace

void AddSaxmlServeCommands(CLI::App& serve, Context& context) {
  auto list_flags = std::make_shared<SaxHttpFlags>();
  auto* list = serve.add_subcommand("list", "Saxml: the published models' state in the cell (sax-http /listcell)");
  list->add_option("--model", list_flags->models, "Model id or preset, repeatable (default /sax/test/spmd)");
  AddKubeAccessFlags(*list, list_flags->access);
  list->footer("Example:\n  tputrain serve list --cluster saxml-tpu --location us-east1 --model /sax/test/spmd");
  list->callback([list_flags, &context] { context.outcome = RunList(*list_flags, context); });

  auto unpublish_flags = std::make_shared<SaxHttpFlags>();
  auto* unpublish = serve.add_subcommand("unpublish", "Saxml: take a model out of the cell (sax-http /unpublish)");
  unpublish->add_option("--model", unpublish_flags->models, "Model id or preset, repeatable (default /sax/test/spmd)");
  AddKubeAccessFlags(*unpublish, unpublish_flags->access);
  AddProvisionFlags(unpublish, unpublish_flags->ledger, /*waits=*/false);
  AddYesFlag(unpublish, unpublish_flags->yes);
  unpublish->footer("Example:\n  tputrain serve unpublish --cluster saxml-tpu --location us-east1 --yes");
  unpublish->callback([unpublish_flags, &context] { context.outcome = RunUnpublish(*unpublish_flags, context); });
}

}  // namespace tputrain::cli
