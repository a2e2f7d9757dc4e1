#include <regex>
#include <set>

#include "container_capacity.h"
#include "field_rules.h"
#include "node_pool_rules.h"
#include "operations.h"
#include "tputrain/catalog/gke_versions.h"
#include "tputrain/core/base64.h"
#include "tputrain/core/gcp_location.h"
#include "tputrain/emulator/handlers.h"
#include "tputrain/emulator/request_limits.h"

// GKE container/v1: clusters, node pools, operations and the server config, with GKE's rules:
// operations go RUNNING -> DONE over the configured latency, a node-pool call on a cluster that
// is still being created or deleted is FAILED_PRECONDITION, and a TPU pool's node count must match
// its topology.
namespace tputrain::emulator {
namespace {

using core::ErrorKind;
using nlohmann::json;

constexpr char kDomain[] = "container.googleapis.com";
constexpr char kApiRoot[] = "https://container.googleapis.com/v1/";
constexpr char kDefaultVersion[] = "1.32.4-gke.1415000";
// Newest first: a prefix ("1.34") resolves to the first that has it. 1.34.0-gke.2201000 and
// 1.34.1-gke.3084001 are the first GKE Standard and Autopilot versions with Ironwood (TPU7x).
const std::vector<std::string> kValidVersions = {"1.34.1-gke.3084001", "1.34.0-gke.2201000", "1.33.2-gke.1240000",
                                                 "1.32.4-gke.1415000", "1.31.9-gke.1044000", "1.30.13-gke.1032000"};
// What a node pool created without a version runs when its cluster is newer: GKE has brought such
// pools up a minor version below a 1.34 cluster (accelerator-microbenchmarks PR #64), below
// Ironwood's minimum, which is why tputrain pins a tpu7x pool's version.
constexpr char kDefaultNodeVersion[] = "1.33.2-gke.1240000";
const std::vector<std::string> kDefaultScopes = {"https://www.googleapis.com/auth/devstorage.read_only",
                                                 "https://www.googleapis.com/auth/logging.write",
                                                 "https://www.googleapis.com/auth/monitoring",
                                                 "https://www.googleapis.com/auth/service.management.readonly",
                                                 "https://www.googleapis.com/auth/servicecontrol",
                                                 "https://www.googleapis.com/auth/trace.append"};

std::string Parent(const Call& call) { return "projects/" + call.args[0] + "/locations/" + call.args[1]; }
std::string ClusterKey(const Call& call) { return Parent(call) + "/clusters/" + call.args[2]; }

// Google's self links use the project number and the legacy zones/ form.
std::string SelfLinkBase(const std::string& project, const std::string& location) {
  return std::string(kApiRoot) + "projects/" + std::to_string(ProjectNumber(project)) + "/zones/" + location;
}

ApiResponse NotFound(const std::string& name) { return Aip193Error(ErrorKind::kNotFound, "Not found: " + name + "."); }

std::optional<ApiResponse> CheckName(const std::string& kind, const json& name) {
  static const std::regex kName("^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$");
  if (!name.is_string() || name.get<std::string>().empty()) {
    return Aip193Error(ErrorKind::kInvalidArgument, kind + ".name must be specified.");
  }
  std::string value = name;
  if (!std::regex_match(value, kName)) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "Invalid value for field '" + kind + ".name': \"" + value +
                           "\". Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,38}[a-z0-9])?)' (only "
                           "alphanumerics and '-' allowed, must start with a letter and end with an alphanumeric, "
                           "and must be no longer than 40 characters).");
  }
  return std::nullopt;
}

int64_t AsInt(const json& value, int64_t fallback) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_string()) return std::stoll(value.get<std::string>());
  return fallback;
}

// A version as the API takes it ("1.34", "1.34.1-gke.3084001", "latest") resolved to a valid one
// (the newest with that prefix); "" when it names none.
std::string ResolveVersion(std::string version) {
  if (version.empty() || version == "latest" || version == "-") return kDefaultVersion;
  static const std::regex kVersion("^[0-9]+\\.[0-9]+(\\.[0-9]+(-gke\\.[0-9]+)?)?$");
  if (!MatchesBounded(version, kVersion)) return "";
  for (const auto& valid : kValidVersions) {
    if (valid == version || valid.rfind(version + ".", 0) == 0 || valid.rfind(version + "-", 0) == 0) return valid;
  }
  return version;  // well-formed but unlisted: taken as given, as before
}

// The version a new pool's nodes run: the one it asks for (never newer than the master), else
// the cluster's node version, or the server's default node version when the cluster is newer.
std::optional<std::string> NewPoolVersion(const json& cluster, const json& pool, std::string& version) {
  const std::string master = cluster.value("currentMasterVersion", "");
  auto master_parsed = catalog::ParseGkeVersion(master);
  if (pool.contains("version")) {
    version = ResolveVersion(pool.value("version", ""));
    auto asked = catalog::ParseGkeVersion(version);
    if (version.empty() || !asked) return "Node version \"" + pool.value("version", "") + "\" is unsupported.";
    if (master_parsed && catalog::BelowMinimum(*master_parsed, *asked)) {
      return "Node version \"" + version + "\" must not be newer than the cluster's master version \"" + master + "\".";
    }
    return std::nullopt;
  }
  auto fallback = catalog::ParseGkeVersion(kDefaultNodeVersion);
  const bool newer = master_parsed && fallback && catalog::BelowMinimum(*fallback, *master_parsed) &&
                     fallback->parts[1] < master_parsed->parts[1];
  version = newer ? kDefaultNodeVersion : cluster.value("currentNodeVersion", master);
  return std::nullopt;
}

// Fills a pool's output fields as GKE shows them while it is being created.
void DecoratePool(json& pool, const std::string& cluster_key, const std::string& project, const std::string& location,
                  const std::string& cluster_name, const std::string& version) {
  json& config = pool["config"];
  if (!config.is_object()) config = json::object();
  if (!config.contains("machineType")) config["machineType"] = "e2-medium";
  if (!config.contains("oauthScopes")) config["oauthScopes"] = kDefaultScopes;
  if (!config.contains("diskSizeGb")) config["diskSizeGb"] = 100;
  if (!config.contains("imageType")) config["imageType"] = "COS_CONTAINERD";
  if (!config.contains("serviceAccount")) config["serviceAccount"] = "default";
  if (!pool.contains("initialNodeCount")) pool["initialNodeCount"] = 3;
  pool["version"] = version;
  pool["status"] = "PROVISIONING";
  pool["selfLink"] =
      SelfLinkBase(project, location) + "/clusters/" + cluster_name + "/nodePools/" + pool.value("name", "");
  pool["etag"] = std::to_string(std::hash<std::string>{}(cluster_key + pool.value("name", "")) % 1000000007);
}

// The node count and labels of a pool, as GKE checks them.
std::optional<ApiResponse> CheckPoolFields(const json& pool, const std::string& field) {
  if (auto bad = NodeCountProblem(pool.value("initialNodeCount", json()))) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "Invalid value for field '" + field + ".initial_node_count': " + *bad + ".");
  }
  if (auto bad = LabelProblem(pool.value("config", json::object()).value("resourceLabels", json()))) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "Invalid value for field '" + field + ".config.resource_labels': " + *bad + ".");
  }
  return std::nullopt;
}

json* FindCluster(Call& call, const std::string& key) {
  auto& clusters = call.world["clusters"];
  auto it = clusters.find(key);
  return it == clusters.end() ? nullptr : &*it;
}

json* FindPool(json& cluster, const std::string& name) {
  for (auto& pool : cluster["nodePools"]) {
    if (pool.value("name", "") == name) return &pool;
  }
  return nullptr;
}

// The running operation that blocks changes to the cluster (or to one of its pools), if any.
const json* BlockingOperation(const Call& call, const std::string& cluster_key, const std::string& pool) {
  for (const auto& [id, op] : call.world["containerOperations"].items()) {
    if (op.value("status", "") == "DONE" || op.value("_cluster", "") != cluster_key) continue;
    std::string type = op.value("operationType", "");
    if (type == "CREATE_CLUSTER" || type == "DELETE_CLUSTER") return &op;
    if (!pool.empty() && op.value("_pool", "") == pool) return &op;
  }
  return nullptr;
}

ApiResponse Busy(const json& op, const std::string& cluster_name) {
  std::string type = op.value("operationType", "");
  std::string doing = type == "CREATE_CLUSTER"     ? "creating cluster " + cluster_name
                      : type == "DELETE_CLUSTER"   ? "deleting cluster " + cluster_name
                      : type == "CREATE_NODE_POOL" ? "creating node pool " + op.value("_pool", "")
                                                   : "deleting node pool " + op.value("_pool", "");
  return Aip193Error(
      ErrorKind::kFailedPrecondition,
      "Operation " + op.value("name", "") + " is currently " + doing + ". Please wait and try again once it is done.",
      json::array({ErrorInfoDetail("CLUSTER_ALREADY_HAS_OPERATION", kDomain)}));
}

json StartOperation(Call& call, const std::string& type, const std::string& cluster_key, const std::string& pool) {
  const std::string& project = call.args[0];
  const std::string& location = call.args[1];
  std::string id = NewOperationId(call.world, call.now_ms);
  std::string cluster_name = cluster_key.substr(cluster_key.rfind('/') + 1);
  std::string target = SelfLinkBase(project, location) + "/clusters/" + cluster_name;
  if (!pool.empty()) target += "/nodePools/" + pool;
  json op = {{"name", id},
             {"zone", location},
             {"operationType", type},
             {"status", "RUNNING"},
             {"selfLink", SelfLinkBase(project, location) + "/operations/" + id},
             {"targetLink", target},
             {"startTime", Rfc3339(call.now_ms)},
             {"location", location},
             {"_cluster", cluster_key},
             {"_pool", pool}};
  StartOperationTimer(op, call);
  call.world["containerOperations"][Parent(call) + "/operations/" + id] = op;
  call.mutated = true;
  return op;
}

std::string CaCertificate(const EmulatorConfig& config, const std::string& cluster_key) {
  if (!config.cluster_ca_pem.empty()) return core::EncodeBase64(config.cluster_ca_pem);
  // Not a parseable certificate: clusters get a real CA only through --cluster-ca-file.
  std::string placeholder = core::EncodeBase64("tputrain emulator placeholder CA for " + cluster_key);
  return core::EncodeBase64("-----BEGIN CERTIFICATE-----\n" + placeholder + "\n-----END CERTIFICATE-----\n");
}

ApiResponse CreateCluster(Call& call) {
  ApiResponse error;
  auto body = call.Body("container", "CreateClusterRequest", ErrorShape::kAip193, error);
  if (!body) return error;
  const std::string& project = call.args[0];
  const std::string& location = call.args[1];
  if (body->contains("parent") && (*body)["parent"] != Parent(call)) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "parent in the body does not match the URL: " + (*body)["parent"].dump());
  }
  if (!core::IsZone(location) && !core::IsRegion(location)) {
    return Aip193Error(ErrorKind::kInvalidArgument, "Location \"" + location + "\" is not a valid zone or region.");
  }
  json cluster = body->value("cluster", json());
  if (!cluster.is_object()) {
    return Aip193Error(ErrorKind::kInvalidArgument, "Invalid JSON payload received. Missing required field 'cluster'.");
  }
  if (auto bad = CheckName("cluster", cluster.value("name", json()))) return *bad;
  std::string name = cluster["name"];
  std::string key = Parent(call) + "/clusters/" + name;
  if (FindCluster(call, key) != nullptr) return Aip193Error(ErrorKind::kAlreadyExists, "Already exists: " + key + ".");
  if (auto bad = LabelProblem(cluster.value("resourceLabels", json()))) {
    return Aip193Error(ErrorKind::kInvalidArgument, "Invalid value for field 'cluster.resource_labels': " + *bad + ".");
  }
  if (auto bad = NodeCountProblem(cluster.value("initialNodeCount", json()))) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "Invalid value for field 'cluster.initial_node_count': " + *bad + ".");
  }
  bool has_pools = cluster.contains("nodePools") && !cluster["nodePools"].empty();
  if (has_pools && (cluster.contains("initialNodeCount") || cluster.contains("nodeConfig"))) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "Cluster.initial_node_count and Cluster.node_config may not be set with Cluster.node_pools.");
  }
  std::string version = ResolveVersion(cluster.value("initialClusterVersion", ""));
  if (version.empty()) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "Master version \"" + cluster.value("initialClusterVersion", "") + "\" is unsupported.");
  }
  if (!has_pools) {
    cluster["nodePools"] = json::array({{{"name", "default-pool"},
                                         {"initialNodeCount", AsInt(cluster.value("initialNodeCount", json(3)), 3)},
                                         {"config", cluster.value("nodeConfig", json::object())}}});
    cluster.erase("initialNodeCount");
    cluster.erase("nodeConfig");
  }
  std::set<std::string> pool_names;
  for (size_t i = 0; i < cluster["nodePools"].size(); ++i) {
    json& pool = cluster["nodePools"][i];
    std::string field = "cluster.node_pools[" + std::to_string(i) + "]";
    if (auto bad = CheckName(field, pool.value("name", json()))) return *bad;
    if (!pool_names.insert(pool["name"].get<std::string>()).second) {
      return Aip193Error(ErrorKind::kInvalidArgument, "Node pool names must be unique: " + pool["name"].dump());
    }
    if (auto bad = CheckPoolFields(pool, field)) return *bad;
    if (auto bad = CheckTpuNodePool(pool, field)) return *bad;
    if (auto bad = CheckPlacementPolicy(call.world, project, location, pool, field)) return *bad;
    if (auto bad = CheckTpuNodeVersion(pool, version, field)) return *bad;
    if (auto bad = CheckNodePoolDisk(pool, field)) return *bad;
    DecoratePool(pool, key, project, location, name, version);
  }
  json locations = cluster.value("locations", json::array());
  if (locations.empty()) {
    locations = core::IsZone(location) ? json::array({location})
                                       : json::array({location + "-a", location + "-b", location + "-c"});
  }
  int64_t nodes = 0;
  for (const auto& pool : cluster["nodePools"]) {
    nodes += AsInt(pool["initialNodeCount"], 0) * static_cast<int64_t>(pool.value("locations", locations).size());
  }
  cluster["location"] = location;
  cluster["zone"] = location;  // deprecated, but gcloud sorts listings by it; regional clusters carry the region
  cluster["locations"] = locations;
  cluster["status"] = "PROVISIONING";
  cluster["selfLink"] = SelfLinkBase(project, location) + "/clusters/" + name;
  cluster["id"] = std::to_string(ProjectNumber(key)) + std::to_string(NextId(call.world));
  cluster["createTime"] = Rfc3339(call.now_ms);
  cluster["initialClusterVersion"] = version;
  cluster["currentMasterVersion"] = version;
  cluster["currentNodeVersion"] = version;
  cluster["currentNodeCount"] = nodes;
  cluster["masterAuth"] = {{"clusterCaCertificate", CaCertificate(call.config, key)}};
  if (!cluster.contains("network")) cluster["network"] = "default";
  if (!cluster.contains("subnetwork")) cluster["subnetwork"] = "default";
  if (!cluster.contains("releaseChannel") &&
      !body->value("cluster", json::object()).contains("initialClusterVersion")) {
    cluster["releaseChannel"] = {{"channel", "REGULAR"}};
  }
  cluster["etag"] = std::to_string(ProjectNumber(key + "etag"));
  if (auto quota = GkeQuotaError(call.world, project, cluster, cluster["nodePools"])) return *quota;
  if (auto reserved = GkeReservationError(call.world, key, cluster, cluster["nodePools"])) return *reserved;
  call.world["clusters"][key] = cluster;
  return JsonReply(Public(StartOperation(call, "CREATE_CLUSTER", key, "")));
}

ApiResponse ListClusters(Call& call) {
  json clusters = json::array();
  std::string prefix = call.args[1] == "-" ? "projects/" + call.args[0] + "/locations/" : Parent(call) + "/clusters/";
  for (const auto& [key, cluster] : call.world["clusters"].items()) {
    if (key.rfind(prefix, 0) == 0) clusters.push_back(Public(cluster));
  }
  json reply = json::object();
  if (!clusters.empty()) reply["clusters"] = clusters;
  return JsonReply(reply);
}

ApiResponse GetCluster(Call& call) {
  json* cluster = FindCluster(call, ClusterKey(call));
  if (cluster == nullptr) return NotFound(ClusterKey(call));
  return JsonReply(Public(*cluster));
}

ApiResponse DeleteCluster(Call& call) {
  std::string key = ClusterKey(call);
  json* cluster = FindCluster(call, key);
  if (cluster == nullptr) return NotFound(key);
  if (const json* op = RetryingOperation(call.world, key)) return IncompatibleOperation(*op);
  for (const auto& [id, op] : call.world["containerOperations"].items()) {
    if (op.value("status", "") != "DONE" && op.value("_cluster", "") == key &&
        op.value("operationType", "") == "DELETE_CLUSTER") {
      return Busy(op, call.args[2]);
    }
  }
  (*cluster)["status"] = "STOPPING";
  return JsonReply(Public(StartOperation(call, "DELETE_CLUSTER", key, "")));
}

ApiResponse CreateNodePool(Call& call) {
  ApiResponse error;
  auto body = call.Body("container", "CreateNodePoolRequest", ErrorShape::kAip193, error);
  if (!body) return error;
  std::string key = ClusterKey(call);
  if (body->contains("parent") && (*body)["parent"] != key) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "parent in the body does not match the URL: " + (*body)["parent"].dump());
  }
  json pool = body->value("nodePool", json());
  if (!pool.is_object()) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "Invalid JSON payload received. Missing required field 'node_pool'.");
  }
  if (auto bad = CheckName("node_pool", pool.value("name", json()))) return *bad;
  json* cluster = FindCluster(call, key);
  if (cluster == nullptr) return NotFound(key);
  std::string pool_name = pool["name"];
  if (FindPool(*cluster, pool_name) != nullptr) {
    return Aip193Error(ErrorKind::kAlreadyExists, "Already exists: " + key + "/nodePools/" + pool_name + ".");
  }
  if (const json* op = BlockingOperation(call, key, "")) return Busy(*op, call.args[2]);
  if (const json* op = RetryingOperation(call.world, key)) return IncompatibleOperation(*op);
  if (auto bad = CheckPoolFields(pool, "node_pool")) return *bad;
  if (auto bad = CheckTpuNodePool(pool, "node_pool")) return *bad;
  if (auto bad = CheckPlacementPolicy(call.world, call.args[0], call.args[1], pool, "node_pool")) return *bad;
  std::string version;
  if (auto bad = NewPoolVersion(*cluster, pool, version)) {
    return Aip193Error(ErrorKind::kInvalidArgument, "Invalid value for field 'node_pool.version': " + *bad);
  }
  if (auto bad = CheckTpuNodeVersion(pool, version, "node_pool")) return *bad;
  if (auto bad = CheckNodePoolDisk(pool, "node_pool")) return *bad;
  DecoratePool(pool, key, call.args[0], call.args[1], call.args[2], version);
  if (auto quota = GkeQuotaError(call.world, call.args[0], *cluster, json::array({pool}))) return *quota;
  if (auto reserved = GkeReservationError(call.world, key, *cluster, json::array({pool}))) return *reserved;
  (*cluster)["nodePools"].push_back(pool);
  return JsonReply(Public(StartOperation(call, "CREATE_NODE_POOL", key, pool_name)));
}

ApiResponse ListNodePools(Call& call) {
  json* cluster = FindCluster(call, ClusterKey(call));
  if (cluster == nullptr) return NotFound(ClusterKey(call));
  json reply = json::object();
  if (!(*cluster)["nodePools"].empty()) reply["nodePools"] = (*cluster)["nodePools"];
  return JsonReply(reply);
}

ApiResponse GetNodePool(Call& call) {
  json* cluster = FindCluster(call, ClusterKey(call));
  json* pool = cluster == nullptr ? nullptr : FindPool(*cluster, call.args[3]);
  if (pool == nullptr) return NotFound(ClusterKey(call) + "/nodePools/" + call.args[3]);
  return JsonReply(*pool);
}

ApiResponse DeleteNodePool(Call& call) {
  std::string key = ClusterKey(call);
  json* cluster = FindCluster(call, key);
  json* pool = cluster == nullptr ? nullptr : FindPool(*cluster, call.args[3]);
  if (pool == nullptr) return NotFound(key + "/nodePools/" + call.args[3]);
  if (const json* op = BlockingOperation(call, key, call.args[3])) return Busy(*op, call.args[2]);
  if (const json* op = RetryingOperation(call.world, key)) return IncompatibleOperation(*op);
  (*pool)["status"] = "STOPPING";
  return JsonReply(Public(StartOperation(call, "DELETE_NODE_POOL", key, call.args[3])));
}

ApiResponse GetOperation(Call& call) {
  std::string key = Parent(call) + "/operations/" + call.args[2];
  auto& ops = call.world["containerOperations"];
  auto it = ops.find(key);
  if (it == ops.end()) return NotFound(key);
  return JsonReply(Public(*it));
}

ApiResponse ListOperations(Call& call) {
  json operations = json::array();
  std::string prefix = call.args[1] == "-" ? "projects/" + call.args[0] + "/locations/" : Parent(call) + "/operations/";
  for (const auto& [key, op] : call.world["containerOperations"].items()) {
    if (key.rfind(prefix, 0) == 0) operations.push_back(Public(op));
  }
  json reply = json::object();
  if (!operations.empty()) reply["operations"] = operations;
  return JsonReply(reply);
}

ApiResponse GetServerConfig(Call& call) {
  (void)call;
  json channels = json::array();
  for (const char* channel : {"RAPID", "REGULAR", "STABLE", "EXTENDED"}) {
    channels.push_back({{"channel", channel}, {"defaultVersion", kDefaultVersion}, {"validVersions", kValidVersions}});
  }
  return JsonReply({{"defaultClusterVersion", kDefaultVersion},
                    {"validMasterVersions", kValidVersions},
                    {"validNodeVersions", kValidVersions},
                    {"defaultImageType", "COS_CONTAINERD"},
                    {"validImageTypes", {"COS_CONTAINERD", "UBUNTU_CONTAINERD"}},
                    {"channels", channels}});
}

}  // namespace

std::vector<Route> ContainerRoutes() {
  constexpr const char* p = "^/v1/projects/([^/]+)/locations/([^/]+)/";
  static const std::string clusters = std::string(p) + "clusters";
  static const std::string cluster = clusters + "/([^/:]+)";
  static const std::string pools = cluster + "/nodePools";
  static const std::string pool = pools + "/([^/:]+)";
  static const std::string operations = std::string(p) + "operations";
  static const std::string operation = operations + "/([^/:]+)";
  static const std::string server_config = std::string(p) + "serverConfig";
  const std::string_view m = "container.projects.locations.";
  static const std::vector<std::string> ids = [&] {
    std::vector<std::string> out;
    for (const char* tail : {"clusters.create", "clusters.list", "clusters.get", "clusters.delete",
                             "clusters.nodePools.create", "clusters.nodePools.list", "clusters.nodePools.get",
                             "clusters.nodePools.delete", "operations.get", "operations.list", "getServerConfig"}) {
      out.push_back(std::string(m) + tail);
    }
    return out;
  }();
  return {
      {"POST", clusters + "$", ids[0], CreateCluster, ErrorShape::kAip193, true},
      {"GET", clusters + "$", ids[1], ListClusters},
      {"GET", cluster + "$", ids[2], GetCluster},
      {"DELETE", cluster + "$", ids[3], DeleteCluster, ErrorShape::kAip193, true},
      {"POST", pools + "$", ids[4], CreateNodePool, ErrorShape::kAip193, true},
      {"GET", pools + "$", ids[5], ListNodePools},
      {"GET", pool + "$", ids[6], GetNodePool},
      {"DELETE", pool + "$", ids[7], DeleteNodePool, ErrorShape::kAip193, true},
      {"GET", operation + "$", ids[8], GetOperation},
      {"GET", operations + "$", ids[9], ListOperations},
      {"GET", server_config + "$", ids[10], GetServerConfig},
  };
}

}  // namespace tputrain::emulator
