// Request bodies and resource parsing for container/v1, kept apart from the client.
// Field choices follow what gcloud 528 sends for the same flags, so a tputrain request and a
// gcloud request for one intent compare field by field.
#include <algorithm>

#include "tputrain/core/json_fields.h"
#include "tputrain/gcp/container/types.h"

namespace tputrain::gcp::container {
namespace {

using nlohmann::json;

// int64 fields arrive as strings (proto3 JSON) or, from lenient servers, as numbers.
std::optional<int> Int(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end()) return std::nullopt;
  if (it->is_number_integer()) return it->get<int>();
  if (it->is_string()) {
    try {
      return std::stoi(it->get<std::string>());
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::vector<std::string> Strings(const json& object, const char* key) {
  std::vector<std::string> out;
  auto it = object.find(key);
  if (it == object.end() || !it->is_array()) return out;
  for (const auto& item : *it) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

std::map<std::string, std::string> Labels(const json& object, const char* key) {
  std::map<std::string, std::string> out;
  auto it = object.find(key);
  if (it == object.end() || !it->is_object()) return out;
  for (const auto& [name, value] : it->items()) {
    if (value.is_string()) out[name] = value.get<std::string>();
  }
  return out;
}

std::vector<StatusCondition> Conditions(const json& object) {
  std::vector<StatusCondition> out;
  auto it = object.find("conditions");
  if (it == object.end() || !it->is_array()) return out;
  for (const auto& item : *it) {
    if (!item.is_object()) continue;
    out.push_back(
        {core::StringAt(item, "code"), core::StringAt(item, "message"), core::StringAt(item, "canonicalCode")});
  }
  return out;
}

bool Enabled(const json& addons, const char* name) {
  auto it = addons.find(name);
  return it != addons.end() && it->is_object() && it->value("enabled", false);
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

void Compare(std::vector<std::string>& diffs, const char* field, const std::string& want, const std::string& have) {
  if (want != have)
    diffs.push_back(std::string(field) + ": want " + (want.empty() ? "(unset)" : want) + ", have " +
                    (have.empty() ? "(unset)" : have));
}

}  // namespace

const std::vector<std::string>& DefaultOauthScopes() {
  static const std::vector<std::string> kScopes = {"https://www.googleapis.com/auth/devstorage.read_only",
                                                   "https://www.googleapis.com/auth/logging.write",
                                                   "https://www.googleapis.com/auth/monitoring",
                                                   "https://www.googleapis.com/auth/service.management.readonly",
                                                   "https://www.googleapis.com/auth/servicecontrol",
                                                   "https://www.googleapis.com/auth/trace.append"};
  return kScopes;
}

std::vector<std::string> ExpandScopes(const std::vector<std::string>& scopes) {
  static const std::map<std::string, std::string> kAliases = {
      {"bigquery", "bigquery"},
      {"cloud-platform", "cloud-platform"},
      {"cloud-source-repos", "source.full_control"},
      {"cloud-source-repos-ro", "source.read_only"},
      {"compute-ro", "compute.readonly"},
      {"compute-rw", "compute"},
      {"datastore", "datastore"},
      {"logging-write", "logging.write"},
      {"monitoring", "monitoring"},
      {"monitoring-read", "monitoring.read"},
      {"monitoring-write", "monitoring.write"},
      {"pubsub", "pubsub"},
      {"service-control", "servicecontrol"},
      {"service-management", "service.management.readonly"},
      {"sql-admin", "sqlservice.admin"},
      {"storage-full", "devstorage.full_control"},
      {"storage-ro", "devstorage.read_only"},
      {"storage-rw", "devstorage.read_write"},
      {"taskqueue", "taskqueue"},
      {"trace", "trace.append"},
      {"userinfo-email", "userinfo.email"},
  };
  std::vector<std::string> out;
  for (const auto& scope : scopes) {
    if (scope == "default") {
      out.insert(out.end(), DefaultOauthScopes().begin(), DefaultOauthScopes().end());
      continue;
    }
    auto alias = kAliases.find(scope);
    out.push_back(alias != kAliases.end() ? "https://www.googleapis.com/auth/" + alias->second : scope);
  }
  return out;
}

json NodePoolToJson(const NodePoolSpec& spec) {
  json config = json::object();
  if (!spec.machine_type.empty()) config["machineType"] = spec.machine_type;
  if (spec.disk_size_gb) config["diskSizeGb"] = *spec.disk_size_gb;
  config["oauthScopes"] = spec.oauth_scopes.empty() ? DefaultOauthScopes() : spec.oauth_scopes;
  if (spec.threads_per_core) {
    config["advancedMachineFeatures"] = {{"threadsPerCore", std::to_string(*spec.threads_per_core)}};
  }
  if (!spec.workload_metadata.empty()) config["workloadMetadataConfig"] = {{"mode", spec.workload_metadata}};
  if (spec.spot) config["spot"] = true;
  if (!spec.reservation.empty()) {
    config["reservationAffinity"] = {{"consumeReservationType", "SPECIFIC_RESERVATION"},
                                     {"key", "compute.googleapis.com/reservation-name"},
                                     {"values", {spec.reservation}}};
  } else if (spec.no_reservation) {
    config["reservationAffinity"] = {{"consumeReservationType", "NO_RESERVATION"}};
  }
  if (spec.flex_start) config["flexStart"] = true;
  if (!spec.max_run_duration.empty()) config["maxRunDuration"] = spec.max_run_duration;
  if (!spec.resource_labels.empty()) config["resourceLabels"] = spec.resource_labels;
  if (!spec.service_account.empty()) config["serviceAccount"] = spec.service_account;

  json pool = {{"config", config},
               {"initialNodeCount", spec.node_count},
               {"management", {{"autoRepair", spec.auto_repair}, {"autoUpgrade", true}}},
               {"name", spec.name},
               {"upgradeSettings", {{"maxSurge", 1}}}};
  if (!spec.node_locations.empty()) pool["locations"] = spec.node_locations;
  if (spec.queued_provisioning) pool["queuedProvisioning"] = {{"enabled", true}};
  if (spec.autoscaling) {
    pool["autoscaling"] = {{"enabled", true},
                           {"locationPolicy", spec.autoscaling->location_policy},
                           {"maxNodeCount", spec.autoscaling->max_node_count},
                           {"minNodeCount", spec.autoscaling->min_node_count}};
  }
  if (!spec.tpu_topology.empty() || !spec.placement_type.empty() || !spec.placement_policy.empty()) {
    json placement = json::object();
    if (!spec.placement_policy.empty()) placement["policyName"] = spec.placement_policy;
    if (!spec.tpu_topology.empty()) placement["tpuTopology"] = spec.tpu_topology;
    if (!spec.placement_type.empty()) placement["type"] = spec.placement_type;
    pool["placementPolicy"] = placement;
  }
  if (!spec.version.empty()) pool["version"] = spec.version;
  return pool;
}

json CreateNodePoolBody(const ClusterRef& parent, const NodePoolSpec& spec) {
  return {{"nodePool", NodePoolToJson(spec)}, {"parent", parent.Name()}};
}

json CreateClusterBody(const LocationRef& parent, const ClusterSpec& spec) {
  json cluster = {{"name", spec.name}};
  json addons = json::object();
  if (spec.autopilot) {
    // What `gcloud container clusters create-auto` sends: the default addons spelled out, VPC-native
    // networking, and a placeholder default pool that Autopilot replaces.
    addons = {{"horizontalPodAutoscaling", {{"disabled", false}}},
              {"httpLoadBalancing", {{"disabled", false}}},
              {"kubernetesDashboard", {{"disabled", true}}},
              {"networkPolicyConfig", {{"disabled", true}}}};
    cluster["autopilot"] = {{"enabled", true}};
    cluster["ipAllocationPolicy"] = {{"createSubnetwork", false}, {"useIpAliases", true}};
    cluster["nodePools"] = json::array(
        {{{"config", {{"oauthScopes", DefaultOauthScopes()}}}, {"initialNodeCount", 1}, {"name", "default-pool"}}});
  } else {
    NodePoolSpec pool = spec.default_pool;
    if (pool.name.empty()) pool.name = "default-pool";
    if (pool.node_count == 0) pool.node_count = 3;
    cluster["nodePools"] = json::array({NodePoolToJson(pool)});
  }
  // Every requested addon is sent (gcloud keeps only the last of repeated --addons flags).
  if (spec.ray_operator) addons["rayOperatorConfig"] = {{"enabled", true}};
  if (spec.gcs_fuse) addons["gcsFuseCsiDriverConfig"] = {{"enabled", true}};
  if (!addons.empty()) cluster["addonsConfig"] = addons;
  if (!spec.workload_pool.empty()) cluster["workloadIdentityConfig"] = {{"workloadPool", spec.workload_pool}};
  if (!spec.cluster_version.empty()) cluster["initialClusterVersion"] = spec.cluster_version;
  if (!spec.node_locations.empty()) cluster["locations"] = spec.node_locations;
  if (!spec.resource_labels.empty()) cluster["resourceLabels"] = spec.resource_labels;
  return {{"cluster", cluster}, {"parent", parent.Parent()}};
}

Operation OperationFromJson(const json& body) {
  Operation op;
  if (!body.is_object()) return op;
  op.name = core::StringAt(body, "name");
  op.operation_type = core::StringAt(body, "operationType");
  op.status = core::StringAt(body, "status");
  op.status_message = core::StringAt(body, "statusMessage");
  op.target_link = core::StringAt(body, "targetLink");
  op.location = core::StringAt(body, "location");
  if (auto error = body.find("error"); error != body.end() && error->is_object()) {
    op.error = RpcStatus{error->value("code", 0), core::StringAt(*error, "message")};
  }
  op.raw = body;
  return op;
}

NodePool NodePoolFromJson(const json& body) {
  NodePool pool;
  if (!body.is_object()) return pool;
  pool.name = core::StringAt(body, "name");
  pool.status = core::StringAt(body, "status");
  pool.status_message = core::StringAt(body, "statusMessage");
  pool.node_count = Int(body, "initialNodeCount").value_or(0);
  pool.locations = Strings(body, "locations");
  pool.conditions = Conditions(body);
  const json config = body.value("config", json::object());
  pool.machine_type = core::StringAt(config, "machineType");
  pool.disk_size_gb = Int(config, "diskSizeGb");
  pool.spot = config.value("spot", false);
  pool.flex_start = config.value("flexStart", false);
  pool.resource_labels = Labels(config, "resourceLabels");
  pool.workload_metadata = core::StringAt(config.value("workloadMetadataConfig", json::object()), "mode");
  pool.threads_per_core = Int(config.value("advancedMachineFeatures", json::object()), "threadsPerCore");
  const json affinity = config.value("reservationAffinity", json::object());
  if (auto values = Strings(affinity, "values"); !values.empty()) pool.reservation = values.front();
  const json placement = body.value("placementPolicy", json::object());
  pool.tpu_topology = core::StringAt(placement, "tpuTopology");
  pool.placement_type = core::StringAt(placement, "type");
  pool.placement_policy = core::StringAt(placement, "policyName");
  pool.version = core::StringAt(body, "version");
  pool.raw = body;
  return pool;
}

Cluster ClusterFromJson(const json& body) {
  Cluster cluster;
  if (!body.is_object()) return cluster;
  cluster.name = core::StringAt(body, "name");
  cluster.location = core::StringAt(body, "location");
  cluster.status = core::StringAt(body, "status");
  cluster.status_message = core::StringAt(body, "statusMessage");
  cluster.endpoint = core::StringAt(body, "endpoint");
  cluster.ca_certificate = core::StringAt(body.value("masterAuth", json::object()), "clusterCaCertificate");
  cluster.current_master_version = core::StringAt(body, "currentMasterVersion");
  cluster.autopilot = body.value("autopilot", json::object()).value("enabled", false);
  const json addons = body.value("addonsConfig", json::object());
  cluster.ray_operator = Enabled(addons, "rayOperatorConfig");
  cluster.gcs_fuse = Enabled(addons, "gcsFuseCsiDriverConfig");
  cluster.workload_pool = core::StringAt(body.value("workloadIdentityConfig", json::object()), "workloadPool");
  cluster.resource_labels = Labels(body, "resourceLabels");
  cluster.conditions = Conditions(body);
  if (auto pools = body.find("nodePools"); pools != body.end() && pools->is_array()) {
    for (const auto& pool : *pools) cluster.node_pools.push_back(NodePoolFromJson(pool));
  }
  cluster.raw = body;
  return cluster;
}

std::vector<std::string> DiffNodePool(const NodePoolSpec& want, const NodePool& have) {
  std::vector<std::string> diffs;
  if (!want.machine_type.empty()) Compare(diffs, "machineType", want.machine_type, have.machine_type);
  if (want.node_count > 0 && want.node_count != have.node_count) {
    Compare(diffs, "initialNodeCount", std::to_string(want.node_count), std::to_string(have.node_count));
  }
  if (want.disk_size_gb && want.disk_size_gb != have.disk_size_gb) {
    Compare(diffs, "config.diskSizeGb", std::to_string(*want.disk_size_gb),
            have.disk_size_gb ? std::to_string(*have.disk_size_gb) : "");
  }
  Compare(diffs, "placementPolicy.tpuTopology", want.tpu_topology, have.tpu_topology);
  if (!want.placement_type.empty()) Compare(diffs, "placementPolicy.type", want.placement_type, have.placement_type);
  Compare(diffs, "placementPolicy.policyName", want.placement_policy, have.placement_policy);
  if (!want.workload_metadata.empty()) {
    Compare(diffs, "config.workloadMetadataConfig.mode", want.workload_metadata, have.workload_metadata);
  }
  if (want.threads_per_core && want.threads_per_core != have.threads_per_core) {
    Compare(diffs, "config.advancedMachineFeatures.threadsPerCore", std::to_string(*want.threads_per_core),
            have.threads_per_core ? std::to_string(*have.threads_per_core) : "");
  }
  if (!want.node_locations.empty()) {
    auto sorted_want = want.node_locations;
    auto sorted_have = have.locations;
    std::sort(sorted_want.begin(), sorted_want.end());
    std::sort(sorted_have.begin(), sorted_have.end());
    Compare(diffs, "locations", Join(sorted_want), Join(sorted_have));
  }
  if (want.spot != have.spot) Compare(diffs, "config.spot", want.spot ? "true" : "false", have.spot ? "true" : "false");
  if (!want.reservation.empty()) Compare(diffs, "config.reservationAffinity", want.reservation, have.reservation);
  if (want.flex_start != have.flex_start) {
    Compare(diffs, "config.flexStart", want.flex_start ? "true" : "false", have.flex_start ? "true" : "false");
  }
  return diffs;
}

std::vector<std::string> DiffCluster(const ClusterSpec& want, const Cluster& have) {
  std::vector<std::string> diffs;
  if (want.autopilot != have.autopilot) {
    Compare(diffs, "autopilot.enabled", want.autopilot ? "true" : "false", have.autopilot ? "true" : "false");
  }
  if (want.ray_operator && !have.ray_operator)
    Compare(diffs, "addonsConfig.rayOperatorConfig.enabled", "true", "false");
  if (want.gcs_fuse && !have.gcs_fuse) Compare(diffs, "addonsConfig.gcsFuseCsiDriverConfig.enabled", "true", "false");
  if (!want.workload_pool.empty()) {
    Compare(diffs, "workloadIdentityConfig.workloadPool", want.workload_pool, have.workload_pool);
  }
  return diffs;
}

}  // namespace tputrain::gcp::container
