#include <regex>

#include "compute_common.h"
#include "operations.h"
#include "tputrain/emulator/handlers.h"
#include "tputrain/emulator/request_limits.h"

// Compute Engine v1 VPC firewall rules (firewalls.insert/get/list/patch/delete) and the global
// operations they start, as gcloud compute firewall-rules and tputrain's IAP rule use them.
// Compute keeps the legacy error shape and its own Operation (status PENDING/RUNNING/DONE,
// targetLink, selfLink). Networks are not emulated: any network name is taken to exist.
namespace tputrain::emulator {
namespace {

using core::ErrorKind;
using nlohmann::json;

constexpr ErrorShape kShape = ErrorShape::kComputeLegacy;

std::string GlobalPath(const Call& call) { return "projects/" + call.args[0] + "/global/"; }

ApiResponse NotFound(const std::string& path) { return ComputeNotFound(path); }
std::string ApiBase(const Call& call) { return ComputeApiBase(call); }

ApiResponse InvalidField(const std::string& field, const std::string& value, const std::string& why) {
  return ErrorFor(kShape, ErrorKind::kInvalidArgument,
                  "Invalid value for field '" + field + "': '" + value + "'. " + why);
}

// The network as a link: a name, a partial path or a full URL, as the API accepts it.
std::string NetworkLink(const Call& call, const std::string& network) {
  std::string path = network.empty() ? "global/networks/default" : network;
  if (auto at = path.find("/compute/v1/"); at != std::string::npos) path = path.substr(at + 12);
  if (path.find('/') == std::string::npos) path = "global/networks/" + path;
  if (path.rfind("projects/", 0) != 0) path = "projects/" + call.args[0] + "/" + path;
  return ApiBase(call) + path;
}

bool IsRange(const std::string& range) {
  static const std::regex kV4(R"(^(\d{1,3})(\.\d{1,3}){3}(/\d{1,2})?$)");
  static const std::regex kV6(R"(^[0-9a-fA-F:]+(/\d{1,3})?$)");
  return MatchesBounded(range, kV4) || (range.find(':') != std::string::npos && MatchesBounded(range, kV6));
}

// The checks Compute makes beyond the schema, with its words.
std::optional<ApiResponse> CheckFirewall(const json& body) {
  static const std::regex kName("^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$");
  const std::string name = body.value("name", "");
  if (!std::regex_match(name, kName)) {
    return InvalidField("resource.name", name, "Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'");
  }
  const bool allows = !body.value("allowed", json::array()).empty();
  const bool denies = !body.value("denied", json::array()).empty();
  if (allows == denies) {
    return ErrorFor(kShape, ErrorKind::kInvalidArgument,
                    "Invalid value for field 'resource': ''. Exactly one of allowed or denied must be specified.");
  }
  for (const char* list : {"allowed", "denied"}) {
    const json rules = body.value(list, json::array());
    for (size_t i = 0; i < rules.size(); ++i) {
      if (rules[i].value("IPProtocol", "").empty()) {
        return InvalidField(std::string("resource.") + list + "[" + std::to_string(i) + "].IPProtocol", "",
                            "The protocol type is required.");
      }
    }
  }
  for (const char* list : {"sourceRanges", "destinationRanges"}) {
    const json ranges = body.value(list, json::array());
    for (size_t i = 0; i < ranges.size(); ++i) {
      const std::string range = ranges[i].get<std::string>();
      if (!IsRange(range)) {
        return InvalidField(std::string("resource.") + list + "[" + std::to_string(i) + "]", range,
                            "Must be a CIDR address range that is contained in the network.");
      }
    }
  }
  const int64_t priority = body.value("priority", int64_t{1000});
  if (priority < 0 || priority > 65535) {
    return InvalidField("resource.priority", std::to_string(priority), "Must be between 0 and 65535.");
  }
  return std::nullopt;
}

json& StartOperation(Call& call, const std::string& type, const std::string& target_link, const std::string& id) {
  return StartComputeOperation(call, GlobalPath(call), type, target_link, id);
}

ApiResponse InsertFirewall(Call& call) {
  ApiResponse error;
  auto body = call.Body("compute", "Firewall", kShape, error);
  if (!body) return error;
  if (auto bad = CheckFirewall(*body)) return *bad;
  const std::string path = GlobalPath(call) + "firewalls/" + body->value("name", "");
  auto& all = call.world["firewalls"];
  if (all.contains(path)) {
    return ErrorFor(kShape, ErrorKind::kAlreadyExists, "The resource '" + path + "' already exists");
  }
  json rule = *body;
  rule["kind"] = "compute#firewall";
  rule["id"] = std::to_string(ProjectNumber(path) * 1000 + NextId(call.world) % 1000);
  rule["creationTimestamp"] = Rfc3339(call.now_ms);
  rule["network"] = NetworkLink(call, body->value("network", ""));
  rule["selfLink"] = ApiBase(call) + path;
  if (!rule.contains("direction")) rule["direction"] = "INGRESS";
  if (!rule.contains("priority")) rule["priority"] = 1000;
  if (!rule.contains("disabled")) rule["disabled"] = false;
  if (!rule.contains("logConfig")) rule["logConfig"] = {{"enable", false}};
  // An ingress rule naming no source admits every address, and Compute says so.
  const bool has_source =
      rule.contains("sourceRanges") || rule.contains("sourceTags") || rule.contains("sourceServiceAccounts");
  if (rule["direction"] == "INGRESS" && !has_source) rule["sourceRanges"] = json::array({"0.0.0.0/0"});
  if (rule["direction"] == "EGRESS" && !rule.contains("destinationRanges")) {
    rule["destinationRanges"] = json::array({"0.0.0.0/0"});
  }
  const std::string link = rule["selfLink"], id = rule["id"];
  all[path] = std::move(rule);
  return JsonReply(Public(StartOperation(call, "insert", link, id)));
}

ApiResponse GetFirewall(Call& call) {
  const std::string path = GlobalPath(call) + "firewalls/" + call.args[1];
  auto& all = call.world["firewalls"];
  auto it = all.find(path);
  if (it == all.end()) return NotFound(path);
  return JsonReply(Public(*it));
}

ApiResponse ListFirewalls(Call& call) {
  const std::string prefix = GlobalPath(call) + "firewalls/";
  json items = json::array();
  for (const auto& [path, rule] : call.world["firewalls"].items()) {
    if (path.rfind(prefix, 0) == 0) items.push_back(Public(rule));
  }
  json reply = {{"kind", "compute#firewallList"},
                {"id", GlobalPath(call) + "firewalls"},
                {"selfLink", ApiBase(call) + GlobalPath(call) + "firewalls"}};
  if (!items.empty()) reply["items"] = std::move(items);
  return JsonReply(reply);
}

ApiResponse DeleteFirewall(Call& call) {
  const std::string path = GlobalPath(call) + "firewalls/" + call.args[1];
  auto& all = call.world["firewalls"];
  auto it = all.find(path);
  if (it == all.end()) return NotFound(path);
  // The rule goes when the operation is done, as on Compute.
  json& op = StartOperation(call, "delete", it->value("selfLink", ""), it->value("id", ""));
  return JsonReply(Public(op));
}

// firewalls.patch (gcloud compute firewall-rules update): the body's fields replace the rule's.
ApiResponse PatchFirewall(Call& call) {
  ApiResponse error;
  auto body = call.Body("compute", "Firewall", kShape, error);
  if (!body) return error;
  const std::string path = GlobalPath(call) + "firewalls/" + call.args[1];
  auto& all = call.world["firewalls"];
  auto it = all.find(path);
  if (it == all.end()) return NotFound(path);
  json rule = *it;
  for (const auto& [key, value] : body->items()) {
    if (key == "kind" || key == "id" || key == "creationTimestamp" || key == "selfLink") continue;
    rule[key] = key == "network" ? json(NetworkLink(call, value.get<std::string>())) : value;
  }
  if (rule.value("name", "") != call.args[1]) {
    return InvalidField("resource.name", rule.value("name", ""), "The name of a firewall rule cannot be changed.");
  }
  if (auto bad = CheckFirewall(rule)) return *bad;
  *it = rule;
  return JsonReply(Public(StartOperation(call, "patch", rule.value("selfLink", ""), rule.value("id", ""))));
}

ApiResponse GetOperation(Call& call) { return GetComputeOperation(call, GlobalPath(call), call.args[1]); }

}  // namespace

std::vector<Route> ComputeRoutes() {
  static const std::string global = "^/compute/v1/projects/([^/]+)/global/";
  static const std::string firewalls = global + "firewalls", firewall = firewalls + "/([^/]+)";
  static const std::string operation = global + "operations/([^/]+)";
  return {
      {"POST", firewalls + "$", "compute.firewalls.insert", InsertFirewall, kShape, true},
      {"GET", firewalls + "$", "compute.firewalls.list", ListFirewalls, kShape},
      {"GET", firewall + "$", "compute.firewalls.get", GetFirewall, kShape},
      {"DELETE", firewall + "$", "compute.firewalls.delete", DeleteFirewall, kShape, true},
      {"PATCH", firewall + "$", "compute.firewalls.patch", PatchFirewall, kShape, true},
      {"GET", operation + "$", "compute.globalOperations.get", GetOperation, kShape},
      // wait answers at once with the operation as it stands: the API promises DONE or a
      // deadline, and gcloud polls again (with its own back-off) while it is not DONE.
      {"POST", operation + "/wait$", "compute.globalOperations.wait", GetOperation, kShape},
  };
}

}  // namespace tputrain::emulator
