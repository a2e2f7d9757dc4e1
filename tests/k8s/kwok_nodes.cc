#include "k8s/kwok_nodes.h"

#include <algorithm>
#include <map>
#include <regex>
#include <stdexcept>

#include "testing/scoped_process.h"
#include "tputrain/http/curl_transport.h"

namespace tputrain::testing {
namespace {

using nlohmann::json;

constexpr const char* kPoolLabel = "cloud.google.com/gke-nodepool";
constexpr const char* kClusterLabel = "tputrain.test/cluster";  // the test's own: which emulated cluster

struct TpuHost {
  const char* prefix;       // machine type prefix, before the chip count
  const char* accelerator;  // GKE's cloud.google.com/gke-tpu-accelerator
  int cpus_per_chip;        // vCPUs and memory of the host, per chip (GKE's machine type tables)
  int memory_gib_per_chip;
};

// From GKE's TPU machine types: ct6e-standard-4t has 4 v6e chips, 180 vCPUs and 720 GB.
constexpr TpuHost kTpuHosts[] = {
    {"ct6e-standard-", "tpu-v6e-slice", 45, 180},
    {"ct5lp-hightpu-", "tpu-v5-lite-podslice", 28, 48},
    {"ct5p-hightpu-", "tpu-v5p-slice", 52, 112},
    {"ct4p-hightpu-", "tpu-v4-podslice", 60, 100},
};

// `json[key]` when it is an object (the API leaves some fields null), else an empty object.
json ObjectAt(const json& object, const char* key) {
  auto found = object.find(key);
  return found != object.end() && found->is_object() ? *found : json::object();
}

std::string StringAt(const json& object, const char* key, const std::string& fallback = "") {
  auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : fallback;
}

std::string Zone(const std::string& location, const json& pool, const json& cluster_locations) {
  auto first = [](const json& locations) {
    return locations.is_array() && !locations.empty() && locations[0].is_string() ? locations[0].get<std::string>()
                                                                                  : std::string();
  };
  auto own = pool.find("locations");
  if (own != pool.end() && !first(*own).empty()) return first(*own);
  if (!first(cluster_locations).empty()) return first(cluster_locations);
  return location;
}

bool NodeSchedulable(const json& node) {
  json taints = ObjectAt(node, "spec")["taints"];
  for (const auto& taint : taints.is_array() ? taints : json::array()) {
    if (StringAt(taint, "key").rfind("node.kubernetes.io/", 0) == 0) return false;  // not-ready, unreachable...
  }
  json conditions = ObjectAt(node, "status")["conditions"];
  for (const auto& condition : conditions.is_array() ? conditions : json::array()) {
    if (StringAt(condition, "type") == "Ready") return StringAt(condition, "status") == "True";
  }
  return false;
}

json NodesOf(k8s::Client& admin, const std::string& selector) {
  auto nodes = admin.GetJson("/api/v1/nodes?labelSelector=" + http::UrlEncode(selector), "");
  if (!nodes) throw std::runtime_error("listing nodes failed: " + nodes.error().message);
  return (*nodes)["items"];
}

}  // namespace

NodePoolShape ShapeOfGkePool(const std::string& cluster, const std::string& location, const json& pool,
                             const json& cluster_locations) {
  NodePoolShape shape;
  shape.cluster = cluster;
  shape.pool = StringAt(pool, "name");
  json config = ObjectAt(pool, "config");
  shape.machine_type = StringAt(config, "machineType", "e2-medium");
  shape.zone = Zone(location, pool, cluster_locations);
  shape.spot = config.contains("spot") && config["spot"].is_boolean() && config["spot"].get<bool>();
  shape.flex_start =
      config.contains("flexStart") && config["flexStart"].is_boolean() && config["flexStart"].get<bool>();
  json count = pool.contains("initialNodeCount") ? pool["initialNodeCount"] : json(3);
  shape.nodes = count.is_string() ? std::stoi(count.get<std::string>()) : count.is_number() ? count.get<int>() : 3;
  // A flex-start pool starts empty and grows to its autoscaling maximum when a workload asks. No
  // cluster autoscaler runs beside the test API server: its nodes are there from the start, as if
  // asked for.
  json autoscaling = ObjectAt(pool, "autoscaling");
  if (shape.flex_start && autoscaling.contains("maxNodeCount")) {
    json max = autoscaling["maxNodeCount"];
    shape.nodes = max.is_string() ? std::stoi(max.get<std::string>()) : max.is_number() ? max.get<int>() : shape.nodes;
  }
  for (const auto& host : kTpuHosts) {
    std::string prefix = host.prefix;
    if (shape.machine_type.rfind(prefix, 0) != 0) continue;
    shape.accelerator = host.accelerator;
    shape.tpu_chips = std::stoi(shape.machine_type.substr(prefix.size()));  // "4t" -> 4
    shape.topology = StringAt(ObjectAt(pool, "placementPolicy"), "tpuTopology");
    shape.cpus = host.cpus_per_chip * shape.tpu_chips;
    shape.memory_gib = host.memory_gib_per_chip * shape.tpu_chips;
    if (shape.topology.empty())
      throw std::runtime_error("TPU pool " + shape.pool + " has no placementPolicy.tpuTopology");
    return shape;
  }
  // General-purpose types end in their vCPU count (n2-standard-32); e2-medium and kin are small.
  std::smatch match;
  static const std::regex kSized(".*-(\\d+)$");
  shape.cpus = std::regex_match(shape.machine_type, match, kSized) ? std::stoi(match[1]) : 2;
  shape.memory_gib = shape.cpus * 4;
  return shape;
}

NodePoolShape CpuPool(const std::string& cluster, int nodes) {
  NodePoolShape shape;
  shape.cluster = cluster;
  shape.pool = "cpu-pool";
  shape.machine_type = "n2-standard-32";
  shape.zone = "us-east5-b";
  shape.nodes = nodes;
  shape.cpus = 32;
  shape.memory_gib = 128;
  return shape;
}

NodePoolShape V6eSlicePool(const std::string& cluster, const std::string& pool) {
  json gke = {{"name", pool},
              {"initialNodeCount", 4},
              {"config", {{"machineType", "ct6e-standard-4t"}}},
              {"placementPolicy", {{"tpuTopology", "4x4"}}}};
  return ShapeOfGkePool(cluster, "us-east5-b", gke);
}

std::vector<json> PoolNodes(const NodePoolShape& shape) {
  std::vector<json> nodes;
  std::string family = shape.machine_type.substr(0, shape.machine_type.find('-'));
  std::string region = shape.zone.substr(0, shape.zone.rfind('-'));
  for (int i = 0; i < shape.nodes; ++i) {
    std::string name = "gke-" + shape.cluster + "-" + shape.pool + "-" + std::to_string(i);
    json labels = {{kPoolLabel, shape.pool},
                   {kClusterLabel, shape.cluster},
                   {"cloud.google.com/machine-family", family},
                   {"node.kubernetes.io/instance-type", shape.machine_type},
                   {"topology.kubernetes.io/zone", shape.zone},
                   {"topology.kubernetes.io/region", region},
                   {"kubernetes.io/hostname", name},
                   {"kubernetes.io/os", "linux"},
                   {"kubernetes.io/arch", "amd64"},
                   {"type", "kwok"}};
    if (shape.spot) labels["cloud.google.com/gke-spot"] = "true";
    if (shape.flex_start) labels["cloud.google.com/gke-flex-start"] = "true";
    json resources = {{"cpu", std::to_string(shape.cpus)},
                      {"memory", std::to_string(shape.memory_gib) + "Gi"},
                      {"pods", "110"},
                      {"ephemeral-storage", "100Gi"}};
    json spec = json::object();
    if (!shape.accelerator.empty()) {
      labels["cloud.google.com/gke-tpu-accelerator"] = shape.accelerator;
      labels["cloud.google.com/gke-tpu-topology"] = shape.topology;
      labels["cloud.google.com/gke-accelerator-count"] = std::to_string(shape.tpu_chips);
      resources["google.com/tpu"] = std::to_string(shape.tpu_chips);
      spec["taints"] = {{{"key", "google.com/tpu"}, {"value", "present"}, {"effect", "NoSchedule"}}};
    }
    json status = {{"capacity", resources}, {"allocatable", resources}};
    if (!shape.kubelet_ip.empty()) {  // kwok keeps addresses a Node already has
      status["addresses"] = {{{"type", "InternalIP"}, {"address", shape.kubelet_ip}}};
      status["daemonEndpoints"] = {{"kubeletEndpoint", {{"Port", shape.kubelet_port}}}};
    }
    nodes.push_back(
        {{"apiVersion", "v1"},
         {"kind", "Node"},
         {"metadata", {{"name", name}, {"labels", labels}, {"annotations", {{"kwok.x-k8s.io/node", "fake"}}}}},
         {"spec", spec},
         {"status", status}});
  }
  return nodes;
}

std::vector<std::string> AddNodePool(k8s::Client& admin, const NodePoolShape& shape) {
  std::vector<std::string> names;
  for (const auto& node : PoolNodes(shape)) {
    names.push_back(node["metadata"]["name"]);
    auto created = admin.Send("POST", "/api/v1/nodes", node.dump());
    if (!created || (!created->ok() && created->status != 409)) {
      throw std::runtime_error("creating node " + names.back() +
                               " failed: " + (created ? created->body : created.error().message));
    }
  }
  std::string selector = std::string(kClusterLabel) + "=" + shape.cluster + "," + kPoolLabel + "=" + shape.pool;
  bool schedulable = WaitFor(
      [&] {
        json nodes = NodesOf(admin, selector);
        return nodes.size() == names.size() &&
               std::all_of(nodes.begin(), nodes.end(), [](const json& node) { return NodeSchedulable(node); });
      },
      std::chrono::minutes(3));  // the node-lifecycle controller's untainting, on a loaded machine
  if (!schedulable) throw std::runtime_error("the nodes of pool " + shape.pool + " did not become schedulable");
  return names;
}

void RemoveNodePools(k8s::Client& admin, const std::string& cluster, const std::vector<std::string>& keep) {
  for (const auto& node : NodesOf(admin, std::string(kClusterLabel) + "=" + cluster)) {
    std::string pool = StringAt(ObjectAt(ObjectAt(node, "metadata"), "labels"), kPoolLabel);
    if (std::find(keep.begin(), keep.end(), pool) != keep.end()) continue;
    (void)admin.Send("DELETE", "/api/v1/nodes/" + node["metadata"]["name"].get<std::string>());
  }
}

std::vector<NodePoolShape> SyncEmulatorNodePools(k8s::Client& admin, const std::string& emulator_url) {
  http::CurlTransport transport;
  http::Request request;
  request.url = emulator_url + "/_emulator/state";
  auto response = transport.Send(request);
  if (!response || response->status != 200) throw std::runtime_error("cannot read the emulator's state");
  json state = json::parse(response->body);
  std::vector<NodePoolShape> synced;
  const json clusters = ObjectAt(state, "clusters");
  for (const auto& [key, cluster] : clusters.items()) {
    std::string name = StringAt(cluster, "name");
    std::string location = StringAt(cluster, "location", StringAt(cluster, "zone"));
    std::vector<std::string> running;
    if (!cluster.contains("nodePools") || !cluster["nodePools"].is_array()) continue;
    for (const auto& pool : cluster["nodePools"]) {
      if (StringAt(pool, "status") != "RUNNING") continue;
      NodePoolShape shape =
          ShapeOfGkePool(name, location, pool, cluster.contains("locations") ? cluster["locations"] : json());
      AddNodePool(admin, shape);
      running.push_back(shape.pool);
      synced.push_back(shape);
    }
    RemoveNodePools(admin, name, running);
  }
  return synced;
}

std::vector<PodPlacement> PodPlacements(k8s::Client& admin, const std::string& ns, const std::string& label_selector) {
  std::map<std::string, std::string> pool_of_node;
  for (const auto& node : NodesOf(admin, kPoolLabel)) {
    pool_of_node[node["metadata"]["name"]] = StringAt(ObjectAt(ObjectAt(node, "metadata"), "labels"), kPoolLabel);
  }
  auto pods = admin.GetJson("/api/v1/namespaces/" + ns + "/pods?labelSelector=" + http::UrlEncode(label_selector), "");
  if (!pods) throw std::runtime_error("listing pods failed: " + pods.error().message);
  std::vector<PodPlacement> out;
  for (const auto& pod : (*pods)["items"]) {
    std::string node = StringAt(ObjectAt(pod, "spec"), "nodeName");
    out.push_back({pod["metadata"]["name"], ObjectAt(ObjectAt(pod, "metadata"), "labels"), node,
                   node.empty() ? "" : pool_of_node[node]});
  }
  return out;
}

std::map<std::string, std::set<std::string>> PoolsByGroup(const std::vector<PodPlacement>& placements,
                                                          const std::string& group_label) {
  std::map<std::string, std::set<std::string>> pools;
  for (const auto& placement : placements)
    pools[StringAt(placement.labels, group_label.c_str())].insert(placement.pool);
  return pools;
}

}  // namespace tputrain::testing
