#include "tputrain/gcp/artifactregistry/client.h"

#include "api_call.h"

namespace tputrain::gcp::artifactregistry {
namespace {

using nlohmann::json;

Repository RepositoryFromJson(const json& body) {
  Repository repository;
  repository.name = body.value("name", "");
  repository.format = body.value("format", "");
  repository.description = body.value("description", "");
  repository.registry_uri = body.value("registryUri", "");
  if (auto labels = body.find("labels"); labels != body.end() && labels->is_object()) {
    for (const auto& [key, value] : labels->items()) {
      if (value.is_string()) repository.labels[key] = value.get<std::string>();
    }
  }
  repository.raw = body;
  return repository;
}

}  // namespace

std::string RepositoryRef::Parent() const {
  return "projects/" + http::PathSegment(project) + "/locations/" + http::PathSegment(location);
}

std::string RepositoryRef::Name() const { return Parent() + "/repositories/" + http::PathSegment(repository); }

Client::Client(http::Transport& transport, std::string base_url)
    : transport_(transport), base_url_(std::move(base_url)) {}

http::Request Client::BuildCreate(const RepositoryRef& ref, const RepositorySpec& spec) const {
  // gcloud artifacts repositories create's body: the name, format and mode always, the rest when given.
  json body = {{"name", ref.Name()}, {"format", spec.format}, {"mode", "MODE_UNSPECIFIED"}};
  if (!spec.description.empty()) body["description"] = spec.description;
  if (!spec.labels.empty()) body["labels"] = spec.labels;
  return JsonRequest(
      "POST",
      JoinUrl(base_url_, "v1/" + ref.Parent() + "/repositories?repositoryId=" + http::UrlEncode(ref.repository)),
      &body);
}

http::Request Client::BuildDelete(const RepositoryRef& ref) const {
  return JsonRequest("DELETE", JoinUrl(base_url_, "v1/" + ref.Name()));
}

core::Result<Operation> Client::Create(const RepositoryRef& ref, const RepositorySpec& spec) {
  auto body = CallJson(transport_, BuildCreate(ref, spec), "artifactregistry.projects.locations.repositories.create");
  if (!body) return core::Fail(body.error());
  return operations::OperationFromJson(*body);
}

core::Result<Operation> Client::Delete(const RepositoryRef& ref) {
  auto body = CallJson(transport_, BuildDelete(ref), "artifactregistry.projects.locations.repositories.delete");
  if (!body) return core::Fail(body.error());
  return operations::OperationFromJson(*body);
}

core::Result<Operation> Client::GetOperation(const std::string& name) {
  auto body = CallJson(transport_, JsonRequest("GET", JoinUrl(base_url_, "v1/" + name)),
                       "artifactregistry.projects.locations.operations.get");
  if (!body) return core::Fail(body.error());
  return operations::OperationFromJson(*body);
}

core::Result<Repository> Client::Get(const RepositoryRef& ref) {
  auto body = CallJson(transport_, JsonRequest("GET", JoinUrl(base_url_, "v1/" + ref.Name())),
                       "artifactregistry.projects.locations.repositories.get");
  if (!body) return core::Fail(body.error());
  return RepositoryFromJson(*body);
}

core::Result<std::vector<Repository>> Client::List(const std::string& project, const std::string& location) {
  std::vector<Repository> repositories;
  std::string page_token;
  const RepositoryRef parent{project, location, ""};
  do {
    std::string url = JoinUrl(base_url_, "v1/" + parent.Parent() + "/repositories");
    if (!page_token.empty()) url += "?pageToken=" + http::UrlEncode(page_token);
    auto body = CallJson(transport_, JsonRequest("GET", url), "artifactregistry.projects.locations.repositories.list");
    if (!body) return core::Fail(body.error());
    for (const auto& item : body->value("repositories", json::array())) {
      repositories.push_back(RepositoryFromJson(item));
    }
    page_token = body->value("nextPageToken", "");
  } while (!page_token.empty());
  return repositories;
}

std::vector<std::string> DiffRepository(const RepositorySpec& spec, const Repository& repository) {
  std::vector<std::string> differences;
  if (repository.format != spec.format) differences.push_back("format: " + repository.format + " != " + spec.format);
  return differences;
}

operations::Waiting<Operation> OperationWaiting(Client& client, const std::string& name) {
  return operations::LongRunning([&client, name] { return client.GetOperation(name); },
                                 "artifactregistry.projects.locations.operations.get");
}

}  // namespace tputrain::gcp::artifactregistry
