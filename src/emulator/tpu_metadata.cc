#include "tputrain/emulator/tpu_metadata.h"

#include <cstdio>
#include <sstream>

#include "tpu_guest_attributes.h"
#include "tputrain/catalog/tpu_types.h"

namespace tputrain::emulator {
namespace {

using nlohmann::json;

constexpr std::string_view kRoot = "/computeMetadata/v1/";

ApiResponse Text(int status, std::string body) {
  ApiResponse response;
  response.status = status;
  response.body = std::move(body);
  response.content_type = "application/text";
  response.headers["Metadata-Flavor"] = "Google";
  return response;
}

ApiResponse NotFoundText(const std::string& path) {
  ApiResponse response = Text(404, "The requested URL " + path + " was not found on this server.\n");
  response.content_type = "text/html; charset=UTF-8";
  return response;
}

// "projects/P/locations/Z/nodes/N" → {P, Z, N}.
std::vector<std::string> NameParts(const std::string& node_name) {
  std::vector<std::string> parts;
  std::stringstream stream(node_name);
  for (std::string part; std::getline(stream, part, '/');) parts.push_back(part);
  if (parts.size() != 6) return {"", "", ""};
  return {parts[1], parts[3], parts[5]};
}

std::vector<int> Dimensions(const std::string& topology) {
  std::vector<int> dims;
  std::stringstream stream(topology);
  for (std::string part; std::getline(stream, part, 'x');) dims.push_back(std::atoi(part.c_str()));
  while (dims.size() < 3) dims.push_back(1);
  return dims;
}

std::string Bounds(const std::vector<int>& dims) {
  return std::to_string(dims[0]) + "," + std::to_string(dims[1]) + "," + std::to_string(dims[2]);
}

std::string CloudTpuType(const std::string& family) {
  if (family == "v5e") return "V5LITE_POD";
  std::string upper = family;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper;
}

// tpu-env: the `KEY: 'value'` lines a real host's metadata carries (Ray reads TOPOLOGY from it).
std::string TpuEnv(const json& node, int worker) {
  auto parts = NameParts(node.value("name", ""));
  std::string accelerator = node.value("acceleratorType", "");
  auto slice = catalog::FindSliceType(accelerator);
  std::vector<std::pair<std::string, std::string>> lines = {
      {"ACCELERATOR_TYPE", accelerator},
      {"CONSUMER_PROJECT_ID", parts[0]},
      {"NODE_ID", parts[2]},
      {"PREEMPTIBLE", node.value("schedulingConfig", json::object()).value("preemptible", false) ? "true" : "false"},
      {"RUNTIME_VERSION", node.value("runtimeVersion", "")},
      {"WORKER_ID", std::to_string(worker)},
      {"ZONE", parts[1]}};
  if (slice) {
    std::vector<int> topology = Dimensions(slice->topology);
    // Multi-host slices have 4 chips a host (2x2x1); a single host holds the whole topology.
    std::vector<int> per_host = slice->single_host() ? topology : std::vector<int>{2, 2, 1};
    std::vector<int> hosts = {topology[0] / per_host[0], topology[1] / per_host[1], topology[2] / per_host[2]};
    lines.insert(lines.end(), {{"CHIPS_PER_HOST_BOUNDS", Bounds(per_host)},
                               {"HOST_BOUNDS", Bounds(hosts)},
                               {"TOPOLOGY", slice->topology},
                               {"TPU_PROCESS_BOUNDS", Bounds(hosts)},
                               {"TYPE", CloudTpuType(slice->generation->family)},
                               {"WRAP", "false,false,false"}});
  }
  std::sort(lines.begin(), lines.end());
  std::string text;
  for (const auto& [key, value] : lines) text += key + ": '" + value + "'\n";
  return text;
}

std::optional<std::string> Lookup(const json& world, const TpuHostRef& host, const std::string& path) {
  const json& node = world["tpuNodes"][host.node_name];
  auto parts = NameParts(host.node_name);
  std::string address = node["networkEndpoints"][host.worker].value("ipAddress", "");
  std::string hostname = TpuHostname(host.node_name, host.worker);
  if (path == "instance/hostname") return hostname + "." + parts[1] + ".c." + parts[0] + ".internal";
  if (path == "instance/name") return hostname;
  if (path == "instance/id") return node.value("id", "0");
  if (path == "instance/zone") return "projects/" + std::to_string(ProjectNumber(parts[0])) + "/zones/" + parts[1];
  if (path == "instance/network-interfaces/0/ip") return address;
  if (path == "project/project-id") return parts[0];
  if (path == "project/numeric-project-id") return std::to_string(ProjectNumber(parts[0]));
  const std::string attributes = "instance/attributes/";
  if (path.rfind(attributes, 0) != 0) return std::nullopt;
  json all = TpuInstanceAttributes(node, host.worker);
  std::string key = path.substr(attributes.size());
  if (key.empty()) {
    std::string listing;
    for (const auto& [name, value] : all.items()) listing += name + "\n";
    return listing;
  }
  auto value = all.find(key);
  if (value == all.end() || !value->is_string()) return std::nullopt;
  return value->get<std::string>();
}

}  // namespace

std::optional<TpuHostRef> FindTpuHost(const json& world, const std::string& address) {
  const json nodes = world.value("tpuNodes", json::object());
  for (const auto& [name, node] : nodes.items()) {
    if (node.value("state", "") != "READY") continue;
    const json endpoints = node.value("networkEndpoints", json::array());
    for (size_t worker = 0; worker < endpoints.size(); ++worker) {
      if (endpoints[worker].value("ipAddress", "") == address) return TpuHostRef{name, static_cast<int>(worker)};
    }
  }
  return std::nullopt;
}

std::optional<std::string> FindTpuHostByInstance(const json& world, const std::string& project, const std::string& zone,
                                                 const std::string& instance) {
  const std::string prefix = "projects/" + project + "/locations/" + zone + "/nodes/";
  const json nodes = world.value("tpuNodes", json::object());
  for (const auto& [name, node] : nodes.items()) {
    if (name.rfind(prefix, 0) != 0 || node.value("state", "") != "READY") continue;
    const json endpoints = node.value("networkEndpoints", json::array());
    for (size_t worker = 0; worker < endpoints.size(); ++worker) {
      if (TpuHostname(name, static_cast<int>(worker)) == instance) return endpoints[worker].value("ipAddress", "");
    }
  }
  return std::nullopt;
}

std::string TpuHostname(const std::string& node_name, int worker) {
  uint32_t hash = 2166136261u;  // FNV-1a: stable across restarts, as a node's hostnames are
  for (char c : node_name) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 16777619u;
  }
  char hex[9];
  std::snprintf(hex, sizeof(hex), "%08x", hash);
  return "t1v-n-" + std::string(hex) + "-w-" + std::to_string(worker);
}

json TpuInstanceAttributes(const json& node, int worker) {
  json attributes = node.value("metadata", json::object());
  const json endpoints = node.value("networkEndpoints", json::array());
  std::string endpoint_list;
  for (const auto& endpoint : endpoints) {
    endpoint_list += (endpoint_list.empty() ? "" : ",") + std::string("unknown:unknown:") +
                     endpoint.value("ipAddress", std::string());
  }
  attributes["accelerator-type"] = node.value("acceleratorType", "");
  attributes["agent-worker-number"] = std::to_string(worker);
  attributes["instance-id"] = NameParts(node.value("name", ""))[2];
  attributes["worker-network-endpoints"] = endpoint_list;
  attributes["tpu-env"] = TpuEnv(node, worker);
  return attributes;
}

ApiResponse AnswerMetadata(json& world, const ApiRequest& request, const std::string& source_address, bool& mutated) {
  auto flavor = request.headers.find("metadata-flavor");
  if (flavor == request.headers.end() || flavor->second != "Google") {
    ApiResponse refused = Text(403, "Your client does not have permission to get URL " + request.path +
                                        " from this server. Missing Metadata-Flavor:Google header.\n");
    refused.content_type = "text/html; charset=UTF-8";
    return refused;
  }
  if (request.path.rfind(kRoot, 0) != 0) return NotFoundText(request.path);
  auto host = FindTpuHost(world, source_address);
  if (!host) {
    return Text(
        403, "The emulator's metadata server answers its TPU VM hosts only; " + source_address + " is none of them.\n");
  }
  std::string path = request.path.substr(kRoot.size());
  const std::string guest = "instance/guest-attributes/";
  if (path.rfind(guest, 0) == 0) {
    std::string rest = path.substr(guest.size());
    auto slash = rest.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == rest.size()) return NotFoundText(request.path);
    std::string name_space = rest.substr(0, slash), key = rest.substr(slash + 1);
    json& node = world["tpuNodes"][host->node_name];
    if (request.method == "PUT") {
      StoreGuestAttribute(node, host->worker, name_space, key, request.body);
      mutated = true;
      return Text(200, "");
    }
    auto value = FindGuestAttribute(node, host->worker, name_space, key);
    return value ? Text(200, *value) : NotFoundText(request.path);
  }
  if (request.method != "GET") return Text(405, "Method not allowed.\n");
  auto value = Lookup(world, *host, path);
  return value ? Text(200, *value) : NotFoundText(request.path);
}

}  // namespace tputrain::emulator
