#include "tputrain/workflow/reads.h"

#include "tputrain/core/gcp_location.h"
#include "tputrain/gcp/container/client.h"
#include "tputrain/gcp/names.h"
#include "tputrain/gcp/tpu/client.h"

namespace tputrain::workflow {
namespace {

// Project and location become URL path segments: checked against the APIs' patterns first.
core::Status CheckSetting(const config::Settings& settings, const std::string& key, const std::string& value) {
  if (key == "project") return gcp::CheckProjectId(settings.Lookup(key).FieldName(key), value);
  if (key == "location") return gcp::CheckLocation(settings.Lookup(key).FieldName(key), value);
  return {};
}

// Repository ids are RFC 1035 labels of up to 63 characters, as TPU nodes'.
constexpr size_t kRepositoryIdLength = 63;

}  // namespace

core::Result<std::string> RequireSetting(const config::Settings& settings, const std::string& key) {
  auto value = settings.Require(key);
  if (!value) return value;
  if (auto valid = CheckSetting(settings, key, *value); !valid) return core::Fail(valid.error());
  return value;
}

core::Result<std::string> LocationOrAll(const config::Settings& settings) {
  auto location = settings.Get("location");
  if (!location || location->empty()) return std::string("-");
  if (auto valid = CheckSetting(settings, "location", *location); !valid) return core::Fail(valid.error());
  return *location;
}

core::Result<gcp::container::ClusterRef> ClusterRefOf(const config::Settings& settings, const std::string& name,
                                                      std::string_view field) {
  if (auto valid = gcp::CheckResourceId(field, name, gcp::kGkeNameLength); !valid) return core::Fail(valid.error());
  auto project = RequireSetting(settings, "project");
  if (!project) return core::Fail(project.error());
  auto location = RequireSetting(settings, "location");
  if (!location) return core::Fail(location.error());
  return gcp::container::ClusterRef{*project, *location, name};
}

core::Status ClusterRead::Check() const {
  return name.empty() ? core::Status{} : gcp::CheckResourceId("NAME", name, gcp::kGkeNameLength);
}

core::Status NodePoolRead::Check() const {
  return name.empty() ? core::Status{} : gcp::CheckResourceId("NAME", name, gcp::kGkeNameLength);
}

core::Status TpuVmRead::Check() const {
  return name.empty() ? core::Status{} : gcp::CheckResourceId("NAME", name, gcp::kTpuNodeNameLength);
}

core::Status RepositoryRead::Check() const {
  return name.empty() ? core::Status{} : gcp::CheckResourceId("NAME", name, kRepositoryIdLength);
}

core::Result<std::string> RequireSetting(Root& root, const std::string& key) {
  auto settings = root.Settings();
  if (!settings) return core::Fail(settings.error());
  return RequireSetting(*settings, key);
}

core::Result<std::string> LocationOrAll(Root& root) {
  auto settings = root.Settings();
  if (!settings) return core::Fail(settings.error());
  return LocationOrAll(*settings);
}

core::Result<gcp::container::ClusterRef> ClusterRefOf(Root& root, const std::string& name, std::string_view field) {
  auto settings = root.Settings();
  if (!settings) return core::Fail(settings.error());
  return ClusterRefOf(*settings, name, field);
}

core::Result<ProjectZone> ProjectAndZone(Root& root) {
  auto settings = root.Settings();
  if (!settings) return core::Fail(settings.error());
  auto project = RequireSetting(*settings, "project");
  if (!project) return core::Fail(project.error());
  auto zone = RequireSetting(*settings, "location");
  if (!zone) return core::Fail(zone.error());
  return ProjectZone{*project, *zone};
}

std::string ListedWhere(Root& root) {
  auto location = LocationOrAll(root);
  if (location && *location != "-") return *location;
  auto project = RequireSetting(root, "project");
  return project ? "project " + *project : "the project";
}

core::Result<std::vector<gcp::container::Cluster>> ReadClusters(Root& root, const ClusterRead& request) {
  if (auto valid = request.Check(); !valid) return core::Fail(valid.error());
  auto settings = root.Settings();
  if (!settings) return core::Fail(settings.error());
  auto project = RequireSetting(*settings, "project");
  if (!project) return core::Fail(project.error());
  auto location = request.name.empty() ? LocationOrAll(*settings) : RequireSetting(*settings, "location");
  if (!location) return core::Fail(location.error());
  auto google = root.Google();
  if (!google) return core::Fail(google.error());
  gcp::container::Client client(**google, root.endpoints().container);
  if (request.name.empty()) return client.ListClusters({*project, *location});
  auto cluster = client.GetCluster({*project, *location, request.name});
  if (!cluster) return core::Fail(cluster.error());
  return std::vector<gcp::container::Cluster>{std::move(*cluster)};
}

core::Result<KubeconfigWritten> GetClusterCredentials(Root& root, const ClusterCredentialsRequest& request) {
  auto settings = root.Settings();
  if (!settings) return core::Fail(settings.error());
  auto ref = ClusterRefOf(*settings, request.name, "NAME");
  if (!ref) return core::Fail(ref.error());
  auto google = root.Google();
  if (!google) return core::Fail(google.error());
  return WriteClusterCredentials(**google, root.endpoints().container, *ref, request.kubeconfig, root.env(),
                                 request.token_exec, root.dry_run());
}

core::Result<std::vector<gcp::container::NodePool>> ReadNodePools(Root& root, const NodePoolRead& request) {
  auto settings = root.Settings();
  if (!settings) return core::Fail(settings.error());
  auto cluster = ClusterRefOf(*settings, request.cluster, "--cluster");
  if (!cluster) return core::Fail(cluster.error());
  if (auto valid = request.Check(); !valid) return core::Fail(valid.error());
  auto google = root.Google();
  if (!google) return core::Fail(google.error());
  gcp::container::Client client(**google, root.endpoints().container);
  if (request.name.empty()) return client.ListNodePools(*cluster);
  auto pool = client.GetNodePool({*cluster, request.name});
  if (!pool) return core::Fail(pool.error());
  return std::vector<gcp::container::NodePool>{std::move(*pool)};
}

namespace {

// The project and zone a TPU VM read looks in (`zonal`: a zone is required; otherwise "-" is
// every zone, which only a list may read).
core::Result<std::pair<std::string, std::string>> TpuVmScope(Root& root, const TpuVmRead& request, bool zonal) {
  auto settings = root.Settings();
  if (!settings) return core::Fail(settings.error());
  auto project = RequireSetting(*settings, "project");
  if (!project) return core::Fail(project.error());
  auto zone = zonal ? RequireSetting(*settings, "location") : LocationOrAll(*settings);
  if (!zone) return core::Fail(zone.error());
  if (!request.name.empty() && *zone == "-") return core::Fail(core::Error::Usage("--zone: required"));
  if (auto valid = request.Check(); !valid) return core::Fail(valid.error());
  return std::make_pair(*project, *zone);
}

}  // namespace

core::Result<std::vector<gcp::tpu::Node>> ReadTpuVms(Root& root, const TpuVmRead& request) {
  auto scope = TpuVmScope(root, request, false);
  if (!scope) return core::Fail(scope.error());
  const auto& [project, zone] = *scope;
  auto google = root.Google();
  if (!google) return core::Fail(google.error());
  gcp::tpu::Client client(**google, root.endpoints().tpu);
  std::vector<gcp::tpu::Node> nodes;
  if (request.name.empty()) {
    auto listed = client.ListNodes(project, zone);
    if (!listed) return core::Fail(listed.error());
    nodes = std::move(*listed);
  } else {
    auto node = client.GetNode({project, zone, request.name});
    if (!node) return core::Fail(node.error());
    nodes.push_back(std::move(*node));
  }
  for (auto& node : nodes) node.raw = WithoutRayToken(std::move(node.raw));
  return nodes;
}

core::Result<std::vector<RayNodeStatus>> ReadTpuVmRay(Root& root, const TpuVmRead& request) {
  auto scope = TpuVmScope(root, request, true);
  if (!scope) return core::Fail(scope.error());
  auto google = root.Google();
  if (!google) return core::Fail(google.error());
  gcp::tpu::Client client(**google, root.endpoints().tpu);
  return TpuVmRayStatus(client, {scope->first, scope->second, request.name});
}

core::Result<std::vector<gcp::artifactregistry::Repository>> ReadRepositories(Root& root,
                                                                              const RepositoryRead& request) {
  if (auto valid = request.Check(); !valid) return core::Fail(valid.error());
  auto settings = root.Settings();
  if (!settings) return core::Fail(settings.error());
  auto project = RequireSetting(*settings, "project");
  if (!project) return core::Fail(project.error());
  // Artifact Registry lists per location; it has no "-" for all of them, as GKE and TPU have.
  auto location = RequireSetting(*settings, "location");
  if (!location) return core::Fail(location.error());
  auto google = root.Google();
  if (!google) return core::Fail(google.error());
  gcp::artifactregistry::Client client(**google, root.endpoints().artifactregistry);
  const std::string region = core::RegionOf(*location);
  if (request.name.empty()) return client.List(*project, region);
  auto repository = client.Get({*project, region, request.name});
  if (!repository) return core::Fail(repository.error());
  return std::vector<gcp::artifactregistry::Repository>{std::move(*repository)};
}

core::Result<std::vector<gcp::serviceusage::Service>> ReadServices(Root& root, const ServicesRead& request) {
  auto settings = root.Settings();
  if (!settings) return core::Fail(settings.error());
  auto project = RequireSetting(*settings, "project");
  if (!project) return core::Fail(project.error());
  auto google = root.Google();
  if (!google) return core::Fail(google.error());
  return gcp::serviceusage::Client(**google, root.endpoints().serviceusage).ListServices(*project, !request.available);
}

}  // namespace tputrain::workflow
