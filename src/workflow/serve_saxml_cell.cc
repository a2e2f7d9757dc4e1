// serve list and serve unpublish: the cell's models asked of sax-http through the API server's
// service proxy; an unpublish marks what the run's ledger held of the model.
#include "tputrain/serving/saxml.h"
#include "tputrain/workflow/serve_saxml.h"

namespace tputrain::workflow {
namespace {

// sax-http of the request's namespace, reached through the cluster's API server.
struct SaxHttp {
  std::unique_ptr<k8s::Connection> connection;
  std::string ns;
  std::string base_url;
  ServeEndpoint Endpoint(Root& root) const {
    return {*connection->transport, base_url, root.clock(), std::chrono::seconds(60)};
  }
};

core::Result<SaxHttp> ReachSaxHttp(Root& root, const KubeAccessFlags& access) {
  auto connection = ConnectCluster(root, access);
  if (!connection) return core::Fail(connection.error());
  SaxHttp reach;
  reach.connection = std::move(*connection);
  reach.ns = access.ns.empty() ? reach.connection->client->default_namespace() : access.ns;
  reach.base_url = SaxHttpEndpoint(reach.connection->client->server(), reach.ns);
  return reach;
}

}  // namespace

core::Result<std::vector<std::string>> SaxModelIds(const std::vector<std::string>& models) {
  std::vector<std::string> ids;
  for (const auto& model : models.empty() ? std::vector<std::string>{""} : models) {
    auto id = SaxModelIdOf("--model", model);
    if (!id) return core::Fail(id.error());
    ids.push_back(*id);
  }
  return ids;
}

core::Result<std::vector<SaxModelState>> ListSaxModels(Root& root, const SaxCellRequest& request) {
  auto ids = SaxModelIds(request.models);
  if (!ids) return core::Fail(ids.error());
  auto reach = ReachSaxHttp(root, request.access);
  if (!reach) return core::Fail(reach.error());
  std::vector<SaxModelState> states;
  for (const auto& id : *ids) {
    auto found = FindSaxModel(reach->Endpoint(root), id);
    if (!found) return core::Fail(found.error());
    states.push_back({id, std::move(*found)});
  }
  return states;
}

core::Result<std::vector<SaxUnpublished>> UnpublishSaxModels(Root& root, const SaxCellRequest& request) {
  auto ids = SaxModelIds(request.models);
  if (!ids) return core::Fail(ids.error());
  auto reach = ReachSaxHttp(root, request.access);
  if (!reach) return core::Fail(reach.error());
  auto engine = serving::MakeEngine(serving::EngineKind::kSaxml);
  RecordedDeleteEnv ledger = RecordedDeleteEnvOf(root, request.access, *reach->connection, request.ledger);
  std::vector<SaxUnpublished> done;
  for (const auto& id : *ids) {
    if (request.dry_run) {
      done.push_back({id, false, serving::BuildUnpublish(reach->base_url, id)});
      continue;
    }
    auto unpublished = UnpublishSaxModel(reach->Endpoint(root), id);
    if (!unpublished) return core::Fail(unpublished.error());
    RecordUnpublished(ledger, {id, "", "", 0},
                      {reach->ns, engine->DefaultService(), engine->DefaultPort(), ledger.access});
    done.push_back({id, *unpublished, std::nullopt});
  }
  return done;
}

}  // namespace tputrain::workflow
