#include "tputrain/gcp/cloudbuild/client.h"

#include "tputrain/gcp/api_call.h"

namespace tputrain::gcp::cloudbuild {
namespace {

std::string ParentPath(const std::string& project, const std::string& location) {
  return "v1/projects/" + http::PathSegment(project) + "/locations/" + http::PathSegment(location);
}

std::string BuildPath(const BuildRef& ref) {
  return ParentPath(ref.project, ref.location) + "/builds/" + http::PathSegment(ref.id);
}

}  // namespace

Client::Client(http::Transport& transport, std::string base_url)
    : transport_(transport), base_url_(std::move(base_url)) {}

http::Request Client::BuildCreate(const std::string& project, const std::string& location,
                                  const DockerBuildSpec& spec) const {
  nlohmann::json body = DockerBuildToJson(spec);
  return JsonRequest("POST", JoinUrl(base_url_, ParentPath(project, location) + "/builds"), &body);
}

core::Result<Build> Client::Create(const std::string& project, const std::string& location,
                                   const DockerBuildSpec& spec) {
  auto op = CallJson(transport_, BuildCreate(project, location, spec), "cloudbuild.projects.locations.builds.create");
  if (!op) return core::Fail(op.error());
  // The operation's metadata (BuildOperationMetadata) carries the build as created.
  const nlohmann::json metadata = op->value("metadata", nlohmann::json::object());
  Build build = BuildFromJson(metadata.value("build", nlohmann::json::object()));
  if (build.id.empty()) {
    return core::Fail(core::Error::Internal("cloudbuild.projects.locations.builds.create: the operation " +
                                            op->value("name", std::string("?")) + " does not name its build"));
  }
  return build;
}

core::Result<Build> Client::Get(const BuildRef& ref) {
  auto body = CallJson(transport_, JsonRequest("GET", JoinUrl(base_url_, BuildPath(ref))),
                       "cloudbuild.projects.locations.builds.get");
  if (!body) return core::Fail(body.error());
  return BuildFromJson(*body);
}

http::Request Client::BuildCancel(const BuildRef& ref) const {
  nlohmann::json body = {{"id", ref.id}, {"name", ref.Name()}, {"projectId", ref.project}};
  auto request = JsonRequest("POST", JoinUrl(base_url_, BuildPath(ref) + ":cancel"), &body);
  request.idempotent = true;  // cancelling twice cancels once
  return request;
}

core::Result<Build> Client::Cancel(const BuildRef& ref) {
  auto answer = CallJson(transport_, BuildCancel(ref), "cloudbuild.projects.locations.builds.cancel");
  if (!answer) return core::Fail(answer.error());
  return BuildFromJson(*answer);
}

}  // namespace tputrain::gcp::cloudbuild
