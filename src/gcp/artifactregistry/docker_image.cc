#include "tputrain/gcp/artifactregistry/docker_image.h"

#include <regex>

#include "tputrain/core/gcp_location.h"
#include "tputrain/gcp/names.h"

namespace tputrain::gcp::artifactregistry {
namespace {

constexpr std::string_view kHostSuffix = "-docker.pkg.dev";

core::Error Bad(std::string_view field, std::string_view value, const std::string& why) {
  return core::Error::Usage(std::string(field) + ": '" + std::string(value) + "' " + why +
                            "; expected LOCATION-docker.pkg.dev/PROJECT/REPOSITORY/IMAGE[:TAG]");
}

bool IsMultiRegion(std::string_view location) { return location == "us" || location == "europe" || location == "asia"; }

}  // namespace

std::string DockerImageRef::UriWithoutTag() const {
  return location + std::string(kHostSuffix) + "/" + project + "/" + repository + "/" + image;
}

std::string DockerImageRef::Uri() const { return UriWithoutTag() + ":" + (tag.empty() ? "latest" : tag); }

core::Result<DockerImageRef> ParseDockerImage(std::string_view field, std::string_view value) {
  if (value.find('@') != std::string_view::npos) {
    return core::Fail(Bad(field, value, "names a digest; a build pushes a tag"));
  }
  const auto first_slash = value.find('/');
  const std::string_view host = value.substr(0, first_slash);
  if (first_slash == std::string_view::npos || host.size() <= kHostSuffix.size() ||
      host.substr(host.size() - kHostSuffix.size()) != kHostSuffix) {
    return core::Fail(Bad(field, value, "is not an Artifact Registry docker image"));
  }
  DockerImageRef ref;
  ref.location = std::string(host.substr(0, host.size() - kHostSuffix.size()));
  if (!core::IsRegion(ref.location) && !IsMultiRegion(ref.location)) {
    return core::Fail(Bad(field, value, "has no region before -docker.pkg.dev"));
  }
  std::string_view rest = value.substr(first_slash + 1);
  const auto project_end = rest.find('/');
  const auto repository_end = project_end == std::string_view::npos ? project_end : rest.find('/', project_end + 1);
  if (repository_end == std::string_view::npos || repository_end + 1 >= rest.size()) {
    return core::Fail(Bad(field, value, "lacks a project, a repository or an image"));
  }
  ref.project = std::string(rest.substr(0, project_end));
  ref.repository = std::string(rest.substr(project_end + 1, repository_end - project_end - 1));
  std::string_view image = rest.substr(repository_end + 1);
  // The tag follows the last ':' of the last path component (a ':' elsewhere would be a port).
  const auto last_slash = image.rfind('/');
  const auto colon = image.find(':', last_slash == std::string_view::npos ? 0 : last_slash);
  if (colon != std::string_view::npos) {
    ref.tag = std::string(image.substr(colon + 1));
    image = image.substr(0, colon);
  }
  ref.image = std::string(image);
  if (!CheckProjectId(field, ref.project)) return core::Fail(Bad(field, value, "has a malformed project id"));
  static const std::regex kRepository("^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$");
  if (!std::regex_match(ref.repository, kRepository)) {
    return core::Fail(Bad(field, value, "has a malformed repository id '" + ref.repository + "'"));
  }
  // Docker's reference grammar for path components, joined by '/'.
  static const std::regex kImagePath("^[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*$");
  if (ref.image.size() > 255 || !std::regex_match(ref.image, kImagePath)) {
    return core::Fail(Bad(field, value,
                          "has a malformed image name '" + ref.image +
                              "' (lowercase letters, digits and . _ - between them, components joined by /)"));
  }
  static const std::regex kTag("^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$");
  if (colon != std::string_view::npos && !std::regex_match(ref.tag, kTag)) {
    return core::Fail(Bad(field, value, "has a malformed tag '" + ref.tag + "' (at most 128 of A-Z a-z 0-9 _ . -)"));
  }
  return ref;
}

}  // namespace tputrain::gcp::artifactregistry
