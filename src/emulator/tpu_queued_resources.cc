#include <ctime>
#include <limits>
#include <regex>

#include "capacity.h"
#include "operations.h"
#include "reservations.h"
#include "tpu_node_common.h"
#include "tputrain/emulator/handlers.h"
#include "tputrain/emulator/request_limits.h"

// Cloud TPU queued resources (v2 and v2alpha1): ACCEPTED while the create operation runs, then
// WAITING_FOR_RESOURCES until the zone has the chips (oldest first) and the queueing policy's
// valid-after time has come, PROVISIONING for one operation latency, ACTIVE with READY nodes. A
// valid-until time that passes first ends it FAILED; it stays listed until deleted.
namespace tputrain::emulator {
namespace {

using core::ErrorKind;
using nlohmann::json;

// A google.protobuf.Duration in JSON ("3600s", "1.5s") in milliseconds.
std::optional<int64_t> DurationMs(const json& value) {
  static const std::regex kDuration("^([0-9]{1,11})(\\.([0-9]{1,9}))?s$");
  std::smatch match;
  if (!value.is_string()) return std::nullopt;
  const std::string text = value.get<std::string>();
  if (!MatchesBounded(text, kDuration, &match)) return std::nullopt;
  std::string fraction = match[3].str() + "000";
  return std::stoll(match[1].str()) * 1000 + std::stoll(fraction.substr(0, 3));
}

// A google.protobuf.Timestamp in JSON (RFC 3339, "2026-11-26T01:08:58.5Z" or with an offset).
std::optional<int64_t> TimestampMs(const json& value) {
  static const std::regex kTime(
      "^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\\.([0-9]{1,9}))?"
      "([Zz]|([+-])([0-9]{2}):([0-9]{2}))$");
  std::smatch match;
  if (!value.is_string()) return std::nullopt;
  const std::string text = value.get<std::string>();
  if (!MatchesBounded(text, kTime, &match)) return std::nullopt;
  std::tm tm{};
  tm.tm_year = std::stoi(match[1].str()) - 1900;
  tm.tm_mon = std::stoi(match[2].str()) - 1;
  tm.tm_mday = std::stoi(match[3].str());
  tm.tm_hour = std::stoi(match[4].str());
  tm.tm_min = std::stoi(match[5].str());
  tm.tm_sec = std::stoi(match[6].str());
  if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60) {
    return std::nullopt;
  }
  int64_t ms = static_cast<int64_t>(timegm(&tm)) * 1000;
  ms += std::stoll((match[8].str() + "000").substr(0, 3));
  if (match[10].matched) {
    const int64_t offset = (std::stoll(match[11].str()) * 60 + std::stoll(match[12].str())) * 60'000;
    ms += match[10].str() == "+" ? -offset : offset;
  }
  return ms;
}

struct Window {
  std::optional<int64_t> after_ms;
  std::optional<int64_t> until_ms;
};

// The queueing policy's window, from the moment of the create; a value that does not parse is
// named in the answer.
core::Result<Window> WindowOf(const json& resource, int64_t now_ms) {
  const json policy = resource.value("queueingPolicy", json::object());
  Window window;
  auto read = [&](const char* field, bool duration, std::optional<int64_t>& into) -> core::Status {
    if (!policy.contains(field)) return {};
    auto value = duration ? DurationMs(policy[field]) : TimestampMs(policy[field]);
    if (!value) {
      return core::Fail(core::Error::Usage(std::string("queueing_policy.") + field + ": expected " +
                                           (duration ? "a duration such as \"3600s\"" : "an RFC 3339 time") + ", got " +
                                           policy[field].dump()));
    }
    into = duration ? now_ms + *value : *value;
    return {};
  };
  for (auto status :
       {read("validAfterDuration", true, window.after_ms), read("validAfterTime", false, window.after_ms),
        read("validUntilDuration", true, window.until_ms), read("validUntilTime", false, window.until_ms)}) {
    if (!status) return core::Fail(status.error());
  }
  const json interval = policy.value("validInterval", json::object());
  for (const auto& [field, into] : {std::pair<const char*, std::optional<int64_t>*>{"startTime", &window.after_ms},
                                    {"endTime", &window.until_ms}}) {
    if (!interval.contains(field)) continue;
    auto value = TimestampMs(interval[field]);
    if (!value) {
      return core::Fail(core::Error::Usage(std::string("queueing_policy.valid_interval.") + field +
                                           ": expected an RFC 3339 time, got " + interval[field].dump()));
    }
    *into = *value;
  }
  return window;
}

ApiResponse CreateQueuedResource(Call& call) {
  ApiResponse error;
  auto body = call.Body(TpuSchemaApi(call), "QueuedResource", ErrorShape::kAip193, error);
  if (!body) return error;
  auto id = call.request.Param("queuedResourceId");
  if (auto bad = CheckId("queued resource", id)) return *bad;
  if (auto bad = CheckZone(call)) return *bad;
  std::string name = TpuParent(call) + "/queuedResources/" + *id;
  if (call.world["queuedResources"].contains(name)) {
    return Aip193Error(ErrorKind::kAlreadyExists, "Resource '" + name + "' already exists");
  }
  const json specs = body->value("tpu", json::object()).value("nodeSpec", json::array());
  if (specs.empty()) return Aip193Error(ErrorKind::kInvalidArgument, "QueuedResource.tpu.node_spec is required.");
  for (const auto& spec : specs) {
    auto slice = SliceOf(spec.value("node", json::object()));
    if (!slice)
      return Aip193Error(ErrorKind::kInvalidArgument,
                         "Invalid accelerator in node_spec: " + slice.error().message + ".");
    if (auto bad = CheckCloudTpuNode(spec.value("node", json::object()), *slice, "node_spec.node")) return *bad;
    auto ids = NodeIdsOf(spec);
    if (!ids) return Aip193Error(ErrorKind::kInvalidArgument, "Invalid node_spec: " + ids.error().message + ".");
    for (const auto& node_id : *ids) {
      if (auto bad = CheckId("node", node_id)) return *bad;
      std::string node_name = spec.value("parent", TpuParent(call)) + "/nodes/" + node_id;
      if (call.world["tpuNodes"].contains(node_name)) {
        return Aip193Error(ErrorKind::kAlreadyExists, "Resource '" + node_name + "' already exists");
      }
    }
  }
  auto window = WindowOf(*body, call.now_ms);
  if (!window) {
    return Aip193Error(ErrorKind::kInvalidArgument, "Invalid QueuedResource: " + window.error().message + ".",
                       json::array({BadRequestDetail("queued_resource.queueing_policy", window.error().message)}));
  }
  json resource = *body;
  resource["name"] = name;
  resource["createTime"] = Rfc3339(call.now_ms);
  resource["state"] = {{"state", "ACCEPTED"}, {"stateInitiator", "USER"}};
  resource["_created"] = call.now_ms;
  if (window->after_ms) resource["_validAfter"] = *window->after_ms;
  if (window->until_ms) resource["_validUntil"] = *window->until_ms;
  if (auto shortfall = QuotaShort(call.world, QuotaApi::kTpu, QueuedResourceDemand(resource))) {
    return TpuQuotaError(*shortfall, call);
  }
  call.world["queuedResources"][name] = resource;
  return JsonReply(Public(StartTpuOperation(call, "create", name, json())));
}

ApiResponse ListQueuedResources(Call& call) {
  json items = json::array();
  // "-" lists every zone, as for nodes.
  std::string prefix =
      call.args[1] == "-" ? "projects/" + call.args[0] + "/locations/" : TpuParent(call) + "/queuedResources/";
  for (const auto& [name, resource] : call.world["queuedResources"].items()) {
    if (name.rfind(prefix, 0) == 0) items.push_back(Public(resource));
  }
  json reply = json::object();
  if (!items.empty()) reply["queuedResources"] = items;
  return JsonReply(reply);
}

ApiResponse GetQueuedResource(Call& call) {
  std::string name = TpuParent(call) + "/queuedResources/" + call.args[2];
  auto& all = call.world["queuedResources"];
  auto it = all.find(name);
  if (it == all.end()) return TpuNotFound(name);
  return JsonReply(Public(*it));
}

template <typename Visit>
void ForEachNodeName(const json& resource, Visit visit) {
  for (const auto& spec : resource["tpu"].value("nodeSpec", json::array())) {
    auto ids = NodeIdsOf(spec);
    for (const auto& id : ids ? *ids : std::vector<std::string>{})
      visit(spec, spec.value("parent", "") + "/nodes/" + id);
  }
}

ApiResponse DeleteQueuedResource(Call& call) {
  std::string name = TpuParent(call) + "/queuedResources/" + call.args[2];
  auto& all = call.world["queuedResources"];
  auto it = all.find(name);
  if (it == all.end()) return TpuNotFound(name);
  std::string state = (*it)["state"].value("state", "");
  bool force = call.request.BoolParam("force");
  if (state == "ACTIVE" && !force) {
    return Aip193Error(ErrorKind::kFailedPrecondition,
                       "Queued resource " + name + " has nodes; delete them first or pass force=true.");
  }
  (*it)["state"]["state"] = "DELETING";
  // force: its nodes go first, so their hosts stop now.
  ForEachNodeName(*it, [&](const json&, const std::string& node_name) {
    auto node = call.world["tpuNodes"].find(node_name);
    if (node != call.world["tpuNodes"].end()) (*node)["state"] = "DELETING";
  });
  return JsonReply(Public(StartTpuOperation(call, "delete", name, json())));
}

// ACTIVE: its nodes exist, READY; Spot ones say so in their scheduling config.
void Activate(json& world, json& resource, int64_t at_ms, const EmulatorConfig& config) {
  resource["state"] = {{"state", "ACTIVE"}, {"stateInitiator", "USER"}};
  const std::string name = resource.value("name", "");
  const bool spot = resource.contains("spot") || resource.value("provisioningModel", "") == "SPOT";
  // Nodes of a reservation say so, and draw on it rather than on the zone's chips.
  const bool reserved = QueuedResourceReserved(resource);
  ForEachNodeName(resource, [&](const json& spec, const std::string& node_name) {
    json node = spec.value("node", json::object());
    auto slice = SliceOf(node);
    node["name"] = node_name;
    node["queuedResource"] = name;
    node["createTime"] = Rfc3339(at_ms);
    node["apiVersion"] = "V2";
    if (slice && !node.contains("acceleratorType")) node["acceleratorType"] = slice->accelerator_type;
    if (spot) node["schedulingConfig"]["spot"] = true;
    if (reserved) {
      node["schedulingConfig"]["reserved"] = true;
      if (resource.contains("reservationName")) {
        node["_reservationName"] = resource.value("_reservationName", resource["reservationName"]);
      }
    }
    node["_hosts"] = slice ? slice->hosts : 1;
    MakeReady(world, node, config);
    world["tpuNodes"][node_name] = node;
  });
}

void Expire(json& resource, int64_t until_ms) {
  std::string zone;
  std::string type;
  for (const auto& spec : resource["tpu"].value("nodeSpec", json::array())) {
    zone = ZoneOfName(spec.value("parent", "") + "/");
    auto slice = SliceOf(spec.value("node", json::object()));
    if (slice) type = slice->accelerator_type;
  }
  const std::string message = "The queued resource was not provisioned before its valid_until time " +
                              Rfc3339(until_ms) + ": there was no capacity for " + type + " in zone \"" + zone + "\".";
  resource["state"] = {
      {"state", "FAILED"},
      {"stateInitiator", "SERVICE"},
      {"failedData", {{"error", {{"code", RpcCodeFor(ErrorKind::kResourceExhausted)}, {"message", message}}}}}};
}

}  // namespace

void FinishQueuedOperation(json& world, json& op, const std::string& target, int64_t at_ms) {
  auto& all = world["queuedResources"];
  auto resource = all.find(target);
  if (op["metadata"].value("verb", "") == "delete") {
    if (resource != all.end()) {
      ForEachNodeName(*resource,
                      [&](const json&, const std::string& node_name) { world["tpuNodes"].erase(node_name); });
      all.erase(resource);
    }
    op["response"] = {{"@type", "type.googleapis.com/google.protobuf.Empty"}};
    return;
  }
  if (resource == all.end()) return;
  (*resource)["state"]["state"] = "WAITING_FOR_RESOURCES";
  ScheduleStep(*resource, at_ms);  // it asks for its chips at once
  op["response"] = Public(*resource);
  op["response"]["@type"] = TpuType(op, "QueuedResource");
}

void StepQueuedResource(json& world, json& resource, int64_t at_ms, const EmulatorConfig& config) {
  const std::string state = resource["state"].value("state", "");
  if (state == "PROVISIONING") {
    EndSteps(resource);
    Activate(world, resource, at_ms, config);
    return;
  }
  if (state != "WAITING_FOR_RESOURCES") {
    EndSteps(resource);
    return;
  }
  const int64_t until = resource.value("_validUntil", std::numeric_limits<int64_t>::max());
  if (at_ms >= until) {
    EndSteps(resource);
    Expire(resource, until);
    return;
  }
  const int64_t after = resource.value("_validAfter", int64_t{0});
  if (at_ms < after) {
    ScheduleStep(resource, after);
    return;
  }
  // ".../reservations/-": any reservation in the zone that has the room, once one has it.
  const std::string reservation = resource.value("reservationName", "");
  if (reservation.ends_with("/reservations/-") && !resource.contains("_reservationName")) {
    const auto specs = resource.value("tpu", json::object()).value("nodeSpec", json::array());
    const json first = specs.empty() ? json::object() : specs[0];
    auto slice = SliceOf(first.value("node", json::object()));
    const std::string zone = ZoneOfName(first.value("parent", "") + "/");
    const std::string project = reservation.substr(9, reservation.find('/', 9) - 9);
    if (slice) {
      if (auto any = AnyReservation(world, project, zone, slice->machine_type, QueuedResourceVms(resource))) {
        resource["_reservationName"] = *any;
      }
    }
  }
  const bool unbound = reservation.ends_with("/reservations/-") && !resource.contains("_reservationName");
  if (unbound || !Fits(world, QueuedResourceDemand(resource)) ||
      ReservationShort(world, QueuedResourceReservedDemand(resource), false)) {
    // First come, first served: the oldest waiting request is asked first at each step.
    WaitStep(resource, resource.value("_created", int64_t{0}),
             until == std::numeric_limits<int64_t>::max() ? std::nullopt : std::optional<int64_t>(until));
    return;
  }
  resource["state"]["state"] = "PROVISIONING";
  ScheduleStep(resource, at_ms + config.op_latency.count());
}

std::vector<Route> TpuQueuedResourceRoutes() {
  static const std::string queued = "^/v2(?:alpha1)?/projects/([^/]+)/locations/([^/]+)/queuedResources";
  static const std::string one = queued + "/([^/:]+)";
  return {
      {"POST", queued + "$", "tpu.projects.locations.queuedResources.create", CreateQueuedResource, ErrorShape::kAip193,
       true},
      {"GET", queued + "$", "tpu.projects.locations.queuedResources.list", ListQueuedResources},
      {"GET", one + "$", "tpu.projects.locations.queuedResources.get", GetQueuedResource},
      {"DELETE", one + "$", "tpu.projects.locations.queuedResources.delete", DeleteQueuedResource, ErrorShape::kAip193,
       true},
  };
}

}  // namespace tputrain::emulator
