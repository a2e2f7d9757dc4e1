#include "tputrain/gcp/cloudbuild/client.h"

#include "api_call.h"

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
  auto body = CallJson(transport_, BuildCreate(project, location, spec), "cloudbuild.projects.locations.builds.create");
  if (!body) return core::Fail(body.error());
  // The operation's metadata (BuildOperationMetadata) carries the build as created.
  const operations::Operation op = operations::OperationFromJson(*body);
  const nlohmann::json build_json =
      op.metadata.is_object() ? op.metadata.value("build", nlohmann::json::object()) : nlohmann::json::object();
  Build build = BuildFromJson(build_json);
  if (build.id.empty()) {
    return core::Fail(core::Error::Internal("cloudbuild.projects.locations.builds.create: the operation " +
                                            (op.name.empty() ? std::string("?") : op.name) +
                                            " does not name its build"));
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

operations::Waiting<Build> BuildWaiting(Client& client, const BuildRef& ref) {
  return {[&client, ref] { return client.Get(ref); }, [](const Build& build) { return IsFinished(build.status); },
          BuildFailure};
}

std::optional<core::Error> BuildFailure(const Build& build) {
  if (!IsFinished(build.status) || build.status == BuildStatus::kSuccess) return std::nullopt;
  std::string message = "build " + build.id + " ended " + std::string(StatusName(build.status));
  if (!build.failure_detail.empty()) {
    message += ": " + build.failure_detail;
  } else if (!build.status_detail.empty()) {
    message += ": " + build.status_detail;
  }
  if (!build.log_url.empty()) message += " (log: " + build.log_url + ")";
  const auto kind = build.status == BuildStatus::kCancelled ? core::ErrorKind::kCancelled
                    : build.status == BuildStatus::kTimeout ? core::ErrorKind::kDeadlineExceeded
                                                            : core::ErrorKind::kFailedPrecondition;
  core::Error error = core::Error::Make(kind, message);
  error.where = "cloudbuild.projects.locations.builds.get";
  return error;
}

}  // namespace tputrain::gcp::cloudbuild
