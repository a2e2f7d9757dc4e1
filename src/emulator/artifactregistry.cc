// Artifact Registry artifactregistry/v1 repositories: create, get, list, delete, as long-running
// operations that finish at once (Google's usually finish before the first poll), with the
// checks Google makes on the id, the location and the format; and the docker images that
// emulated Cloud Builds push into them (dockerImages list and get).
#include <regex>

#include "field_rules.h"
#include "operations.h"
#include "tputrain/core/gcp_location.h"
#include "tputrain/emulator/handlers.h"
#include "tputrain/emulator/request_limits.h"

namespace tputrain::emulator {
namespace {

using core::ErrorKind;
using nlohmann::json;

std::string Parent(const Call& call) { return "projects/" + call.args[0] + "/locations/" + call.args[1]; }

json FinishedOperation(Call& call, const std::string& verb, json response) {
  // "ar-" keeps them apart from GKE's operations, which share the path.
  const std::string name = Parent(call) + "/operations/ar-" + std::to_string(NextId(call.world));
  json op = {{"name", name},
             {"done", true},
             {"metadata",
              {{"@type", "type.googleapis.com/google.devtools.artifactregistry.v1.OperationMetadata"}, {"verb", verb}}},
             {"response", std::move(response)}};
  FinishLater(op, call);
  call.world["artifactOperations"][name] = op;
  call.mutated = true;
  return PublicOperation(op);
}

ApiResponse CreateRepository(Call& call) {
  ApiResponse error;
  auto body = call.Body("artifactregistry", "Repository", ErrorShape::kAip193, error);
  if (!body) return error;
  if (!core::IsRegion(call.args[1]) && call.args[1] != "us" && call.args[1] != "europe" && call.args[1] != "asia") {
    return Aip193Error(ErrorKind::kInvalidArgument, "Invalid location \"" + call.args[1] +
                                                        "\": repositories live in a region such as us-east5, or in "
                                                        "the multi-regions us, europe and asia.");
  }
  const std::string id = call.request.Param("repositoryId").value_or("");
  static const std::regex kId("^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$");
  if (!std::regex_match(id, kId)) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "Invalid repository id \"" + id +
                           "\": it must be 1-63 lowercase letters, digits or hyphens, start with a letter and end "
                           "with a letter or digit.");
  }
  const std::string format = body->value("format", "");
  if (format.empty() || format == "FORMAT_UNSPECIFIED") {
    return Aip193Error(ErrorKind::kInvalidArgument, "Repository format must be specified.");
  }
  if (auto bad = LabelProblem(body->value("labels", json()))) {
    return Aip193Error(ErrorKind::kInvalidArgument, "Invalid repository labels: " + *bad + ".");
  }
  const std::string name = Parent(call) + "/repositories/" + id;
  if (body->contains("name") && (*body)["name"] != name) {
    return Aip193Error(ErrorKind::kInvalidArgument, "repository name in the body does not match the URL");
  }
  auto& repositories = call.world["repositories"];
  if (repositories.contains(name)) {
    return Aip193Error(ErrorKind::kAlreadyExists, "the repository already exists");
  }
  json repository = *body;
  const std::string now = Rfc3339(call.now_ms);
  repository["name"] = name;
  if (repository.value("mode", "MODE_UNSPECIFIED") == "MODE_UNSPECIFIED") repository["mode"] = "STANDARD_REPOSITORY";
  repository["createTime"] = now;
  repository["updateTime"] = now;
  if (format == "DOCKER") repository["registryUri"] = call.args[1] + "-docker.pkg.dev/" + call.args[0] + "/" + id;
  repositories[name] = repository;
  json response = repository;
  response["@type"] = "type.googleapis.com/google.devtools.artifactregistry.v1.Repository";
  return JsonReply(FinishedOperation(call, "create", response));
}

ApiResponse GetRepository(Call& call) {
  const std::string name = Parent(call) + "/repositories/" + call.args[2];
  const json& repositories = call.world["repositories"];
  auto it = repositories.find(name);
  if (it == repositories.end()) return Aip193Error(ErrorKind::kNotFound, "Requested entity was not found.");
  return JsonReply(*it);
}

ApiResponse ListRepositories(Call& call) {
  json listed = json::array();
  const std::string prefix = Parent(call) + "/repositories/";
  for (const auto& [name, repository] : call.world["repositories"].items()) {
    if (name.rfind(prefix, 0) == 0) listed.push_back(repository);
  }
  return JsonReply(listed.empty() ? json::object() : json{{"repositories", listed}});
}

ApiResponse DeleteRepository(Call& call) {
  const std::string name = Parent(call) + "/repositories/" + call.args[2];
  auto& repositories = call.world["repositories"];
  if (!repositories.contains(name)) return Aip193Error(ErrorKind::kNotFound, "Requested entity was not found.");
  repositories.erase(name);
  call.world["dockerImages"].erase(name);
  return JsonReply(FinishedOperation(call, "delete", {{"@type", "type.googleapis.com/google.protobuf.Empty"}}));
}

ApiResponse GetOperation(Call& call) {
  const std::string name = Parent(call) + "/operations/" + call.args[2];
  const json& operations = call.world["artifactOperations"];
  auto it = operations.find(name);
  if (it == operations.end()) return Aip193Error(ErrorKind::kNotFound, "Operation not found: " + name);
  return JsonReply(PublicOperation(*it));
}

const json* FindImages(Call& call, ApiResponse& error) {
  const std::string repository = Parent(call) + "/repositories/" + call.args[2];
  if (!call.world["repositories"].contains(repository)) {
    error = Aip193Error(ErrorKind::kNotFound, "Requested entity was not found.");
    return nullptr;
  }
  return &call.world["dockerImages"][repository];
}

ApiResponse ListDockerImages(Call& call) {
  ApiResponse error;
  const json* images = FindImages(call, error);
  if (images == nullptr) return error;
  json listed = json::array();
  for (const auto& [key, image] : images->items()) listed.push_back(image);
  return JsonReply(listed.empty() ? json::object() : json{{"dockerImages", listed}});
}

// "img@sha256:...", or "img:tag" as Google also accepts; the path arrives decoded ("a/b@...").
ApiResponse GetDockerImage(Call& call) {
  ApiResponse error;
  const json* images = FindImages(call, error);
  if (images == nullptr) return error;
  const std::string wanted = call.args[3];
  if (auto it = images->find(wanted); it != images->end()) return JsonReply(*it);
  auto colon = wanted.rfind(':');
  if (wanted.find('@') == std::string::npos && colon != std::string::npos) {
    const std::string image = wanted.substr(0, colon), tag = wanted.substr(colon + 1);
    for (const auto& [key, found] : images->items()) {
      if (key.substr(0, key.find('@')) != image) continue;
      for (const auto& have : found.value("tags", json::array())) {
        if (have == tag) return JsonReply(found);
      }
    }
  }
  return Aip193Error(ErrorKind::kNotFound, "Requested entity was not found.");
}

struct DockerTag {
  std::string location, project, repository, image, tag;
};

std::optional<DockerTag> ParseDockerTag(const std::string& text) {
  static const std::regex kTag(
      "^([a-z0-9-]+)-docker\\.pkg\\.dev/([a-z0-9:.-]+)/([a-z0-9-]+)/([a-z0-9._/"
      "-]+?)(:([A-Za-z0-9_][A-Za-z0-9_.-]{0,127}))?$");
  std::smatch match;
  if (!MatchesBounded(text, kTag, &match)) return std::nullopt;
  return DockerTag{match[1], match[2], match[3], match[4], match[6].matched ? match[6].str() : "latest"};
}

std::string EncodedImage(std::string image) {
  for (size_t at = image.find('/'); at != std::string::npos; at = image.find('/', at + 3)) image.replace(at, 1, "%2F");
  return image;
}

}  // namespace

bool IsArtifactRegistryDockerTag(const std::string& tag) { return ParseDockerTag(tag).has_value(); }

std::optional<std::string> PushDockerImage(json& world, const std::string& tag, const std::string& digest,
                                           int64_t size_bytes, int64_t now_ms) {
  auto parsed = ParseDockerTag(tag);
  if (!parsed) return "invalid reference format: " + tag;
  const std::string repository =
      "projects/" + parsed->project + "/locations/" + parsed->location + "/repositories/" + parsed->repository;
  auto& repositories = world["repositories"];
  auto it = repositories.find(repository);
  if (it == repositories.end() || it->value("format", "") != "DOCKER") {
    return "name unknown: Repository \"" + parsed->repository + "\" not found";
  }
  auto& images = world["dockerImages"][repository];
  // A tag names one image at a time: pushing it again moves it.
  for (auto& [key, other] : images.items()) {
    if (key.substr(0, key.find('@')) != parsed->image || !other.contains("tags")) continue;
    auto& tags = other["tags"];
    for (size_t i = 0; i < tags.size(); ++i) {
      if (tags[i] == parsed->tag) tags.erase(i--);
    }
  }
  const std::string key = parsed->image + "@" + digest;
  const std::string now = Rfc3339(now_ms);
  json& image = images[key];
  json tags = image.is_object() ? image.value("tags", json::array()) : json::array();
  const std::string uploaded = image.is_object() ? image.value("uploadTime", now) : now;
  tags.push_back(parsed->tag);
  image = {{"name", repository + "/dockerImages/" + EncodedImage(parsed->image) + "@" + digest},
           {"uri", parsed->location + "-docker.pkg.dev/" + parsed->project + "/" + parsed->repository + "/" +
                       parsed->image + "@" + digest},
           {"tags", tags},
           {"imageSizeBytes", std::to_string(size_bytes)},
           {"uploadTime", uploaded},
           {"mediaType", "application/vnd.docker.distribution.manifest.v2+json"},
           {"buildTime", now},
           {"updateTime", now}};
  return std::nullopt;
}

std::vector<Route> ArtifactRegistryRoutes() {
  static const std::string location = "^/v1/projects/([^/:]+)/locations/([^/:]+)";
  static const std::string repositories = location + "/repositories";
  return {
      {"POST", repositories + "$", "artifactregistry.projects.locations.repositories.create", CreateRepository,
       ErrorShape::kAip193, true},
      {"GET", repositories + "$", "artifactregistry.projects.locations.repositories.list", ListRepositories},
      {"GET", repositories + "/([^/:]+)$", "artifactregistry.projects.locations.repositories.get", GetRepository},
      {"DELETE", repositories + "/([^/:]+)$", "artifactregistry.projects.locations.repositories.delete",
       DeleteRepository, ErrorShape::kAip193, true},
      {"GET", repositories + "/([^/:]+)/dockerImages$",
       "artifactregistry.projects.locations.repositories.dockerImages.list", ListDockerImages},
      {"GET", repositories + "/([^/:]+)/dockerImages/(.+)$",
       "artifactregistry.projects.locations.repositories.dockerImages.get", GetDockerImage},
      {"GET", location + "/operations/(ar-[^/:]+)$", "artifactregistry.projects.locations.operations.get",
       GetOperation},
  };
}

}  // namespace tputrain::emulator
