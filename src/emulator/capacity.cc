#include "capacity.h"

#include <limits>
#include <map>

#include "tpu_node_common.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/gcp_location.h"

namespace tputrain::emulator {

using nlohmann::json;

namespace {

constexpr int64_t kMaxChips = 1'000'000'000;

// A member to iterate over in place (an empty object when absent): a temporary from
// json::value would not outlive the loop's iterators.
const json& Member(const json& object, const char* key) {
  static const json kAbsent = json::object();
  if (!object.is_object()) return kAbsent;
  auto it = object.find(key);
  return it == object.end() ? kAbsent : *it;
}

std::string Key(std::string_view location, std::string_view generation, CapacityMode mode) {
  return std::string(location) + "/" + std::string(generation) + "/" + std::string(ModeName(mode));
}

// "LOCATION/GENERATION[/MODE]" as the table keeps it ("LOCATION/GENERATION/MODE"); empty when bad.
std::optional<std::string> NormalKey(std::string_view key, bool zones, std::string& problem) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    auto slash = key.find('/', start);
    parts.emplace_back(key.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (parts.size() < 2 || parts.size() > 3) {
    problem = "expected " + std::string(zones ? "ZONE" : "REGION") + "/GENERATION[/on-demand|spot], got '" +
              std::string(key) + "'";
    return std::nullopt;
  }
  if (zones ? !core::IsZone(parts[0]) : !core::IsRegion(parts[0])) {
    problem = "expected a " + std::string(zones ? "zone (us-east5-a)" : "region (us-east5)") + ", got '" + parts[0] +
              "' in '" + std::string(key) + "'";
    return std::nullopt;
  }
  const catalog::TpuGeneration* generation = catalog::FindGeneration(parts[1]);
  if (generation == nullptr) {
    problem =
        "expected a TPU generation (v4, v5e, v5p, v6e, tpu7x), got '" + parts[1] + "' in '" + std::string(key) + "'";
    return std::nullopt;
  }
  CapacityMode mode = CapacityMode::kOnDemand;
  if (parts.size() == 3) {
    if (parts[2] == "spot") {
      mode = CapacityMode::kSpot;
    } else if (parts[2] != "on-demand") {
      problem = "expected the mode on-demand or spot, got '" + parts[2] + "' in '" + std::string(key) + "'";
      return std::nullopt;
    }
  }
  return Key(parts[0], generation->family, mode);
}

std::optional<int64_t> Limit(const json& world, std::string_view table, const std::string& key) {
  auto capacity = world.find("capacity");
  if (capacity == world.end() || !capacity->is_object()) return std::nullopt;
  auto limits = capacity->find(table);
  if (limits == capacity->end() || !limits->is_object()) return std::nullopt;
  auto limit = limits->find(key);
  if (limit == limits->end() || !limit->is_number_integer()) return std::nullopt;
  return limit->get<int64_t>();
}

CapacityMode NodeMode(const json& node) {
  const json scheduling = node.value("schedulingConfig", json::object());
  // v2alpha1 also says it with schedulingConfig.provisioningModel.
  const bool spot = scheduling.value("spot", false) || scheduling.value("preemptible", false) ||
                    scheduling.value("provisioningModel", "") == "SPOT";
  return spot ? CapacityMode::kSpot : CapacityMode::kOnDemand;
}

bool NodeReserved(const json& node) {
  const json scheduling = node.value("schedulingConfig", json::object());
  return scheduling.value("reserved", false) || scheduling.contains("reservationName") ||
         scheduling.value("provisioningModel", "") == "RESERVATION_BOUND";
}

}  // namespace

bool QueuedResourceReserved(const json& resource) {
  return resource.contains("reservationName") ||
         resource.value("guaranteed", json::object()).value("reserved", false) ||
         resource.value("provisioningModel", "") == "RESERVATION_BOUND";
}

namespace {

std::string QueuedState(const json& resource) { return resource.value("state", json::object()).value("state", ""); }

// The generation and chips per node of a GKE TPU machine type ("ct6e-standard-4t": v6e, 4).
std::optional<std::pair<std::string, int64_t>> TpuMachine(const std::string& machine_type) {
  const std::string prefix = machine_type.substr(0, machine_type.find('-'));
  const auto last = machine_type.rfind('-');
  if (last == std::string::npos || machine_type.back() != 't') return std::nullopt;
  const std::string count = machine_type.substr(last + 1, machine_type.size() - last - 2);
  if (count.empty() || count.size() > 3 || count.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  for (const auto& generation : catalog::Generations()) {
    const std::string& known = generation.multi_host_machine_type;
    if (known.substr(0, known.find('-')) == prefix) return std::make_pair(generation.family, std::stoll(count));
  }
  return std::nullopt;
}

int64_t NodeCount(const json& pool) {
  const json& count = pool.value("initialNodeCount", json(0));
  if (count.is_number_integer()) return count.get<int64_t>();
  if (count.is_string()) {
    const std::string text = count.get<std::string>();
    if (!text.empty() && text.size() < 10 && text.find_first_not_of("0123456789") == std::string::npos)
      return std::stoll(text);
  }
  return 0;
}

// Every demand that holds chips now (capacity) or counts against quota (`quota`, for `api`).
template <typename Visit>
void ForEachHolding(const json& world, std::optional<QuotaApi> quota, Visit visit) {
  if (!quota || *quota == QuotaApi::kTpu) {
    for (const auto& [name, node] : Member(world, "tpuNodes").items()) {
      const std::string state = node.value("state", "");
      // A node holds its chips once created and until it is gone; preempted ones gave them back.
      // Quota counts it from the create on.
      if (state == "PREEMPTED" || state == "STOPPED" || (!quota && state == "CREATING")) continue;
      if (auto demand = TpuNodeDemand(node)) visit(*demand);
    }
    for (const auto& [name, resource] : Member(world, "queuedResources").items()) {
      const std::string state = QueuedState(resource);
      // PROVISIONING holds what its nodes will; quota counts what waits too (ACTIVE ones count as nodes).
      const bool holds = state == "PROVISIONING" ||
                         (quota && (state == "ACCEPTED" || state == "WAITING_FOR_RESOURCES" || state == "CREATING"));
      if (!holds) continue;
      for (const auto& demand : QueuedResourceDemand(resource)) visit(demand);
    }
  }
  if (!quota || *quota == QuotaApi::kCompute) {
    for (const auto& [key, cluster] : Member(world, "clusters").items()) {
      for (const auto& pool : Member(cluster, "nodePools")) {
        const std::string status = pool.value("status", "");
        if (status == "ERROR" || (!quota && status == "PROVISIONING")) continue;
        for (const auto& demand : NodePoolDemand(cluster, pool)) visit(demand);
      }
    }
  }
}

int64_t Held(const json& world, const std::string& key) {
  int64_t held = 0;
  ForEachHolding(world, std::nullopt, [&](const ChipDemand& demand) {
    if (Key(demand.zone, demand.generation, demand.mode) == key) held += demand.chips;
  });
  return held;
}

int64_t Used(const json& world, QuotaApi api, const std::string& key) {
  int64_t used = 0;
  ForEachHolding(world, api, [&](const ChipDemand& demand) {
    if (Key(core::RegionOf(demand.zone), demand.generation, demand.mode) == key) used += demand.chips;
  });
  return used;
}

}  // namespace

std::string_view ModeName(CapacityMode mode) { return mode == CapacityMode::kSpot ? "spot" : "on-demand"; }

std::string ZoneOfName(std::string_view name) {
  const std::string_view marker = "/locations/";
  auto at = name.find(marker);
  if (at == std::string_view::npos) return "";
  auto rest = name.substr(at + marker.size());
  return std::string(rest.substr(0, rest.find('/')));
}

core::Result<json> ParseCapacityFlag(std::string_view flag, std::string_view text, bool zones) {
  json table = json::object();
  size_t start = 0;
  while (start <= text.size()) {
    auto comma = text.find(',', start);
    std::string_view item =
        text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    auto equals = item.find('=');
    std::string problem;
    if (equals == std::string_view::npos) {
      problem = "expected LOCATION/GENERATION[/MODE]=CHIPS, got '" + std::string(item) + "'";
    } else if (auto key = NormalKey(item.substr(0, equals), zones, problem)) {
      const std::string value(item.substr(equals + 1));
      if (value.empty() || value.size() > 10 || value.find_first_not_of("0123456789") != std::string::npos ||
          std::stoll(value) > kMaxChips) {
        problem = "expected a number of chips (0-" + std::to_string(kMaxChips) + "), got '" + value + "'";
      } else {
        table[*key] = std::stoll(value);
      }
    }
    if (!problem.empty()) return core::Fail(core::Error::Usage(std::string(flag) + ": " + problem));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return table;
}

core::Result<void> ApplyCapacity(json& world, const json& change) {
  if (!change.is_object()) return core::Fail(core::Error::Usage("expected {\"chips\": {...}, \"quota\": {...}}"));
  json updated = world.value("capacity", json::object());
  if (!updated.is_object()) updated = json::object();
  for (const auto& [table, entries] : change.items()) {
    if (table != "chips" && table != "quota") {
      return core::Fail(core::Error::Usage("unknown capacity table '" + table + "' (chips, quota)"));
    }
    if (!entries.is_object()) return core::Fail(core::Error::Usage(table + ": expected an object of KEY: chips"));
    json& limits = updated[table];
    if (!limits.is_object()) limits = json::object();
    for (const auto& [raw_key, value] : entries.items()) {
      std::string problem;
      auto key = NormalKey(raw_key, table == "chips", problem);
      if (!key) return core::Fail(core::Error::Usage(table + ": " + problem));
      if (value.is_null()) {
        limits.erase(*key);
      } else if (value.is_number_integer() && value.get<int64_t>() >= 0 && value.get<int64_t>() <= kMaxChips) {
        limits[*key] = value.get<int64_t>();
      } else {
        return core::Fail(core::Error::Usage(table + "." + raw_key + ": expected a number of chips (0-" +
                                             std::to_string(kMaxChips) + ") or null"));
      }
    }
  }
  world["capacity"] = std::move(updated);
  return {};
}

json CapacityReport(const json& world) {
  json report = {{"chips", json::object()}, {"quota", json::object()}};
  const json& capacity = Member(world, "capacity");
  for (const auto& [key, total] : Member(capacity, "chips").items()) {
    if (!total.is_number_integer()) continue;
    const int64_t held = Held(world, key);
    report["chips"][key] = {
        {"total", total}, {"held", held}, {"free", std::max<int64_t>(0, total.get<int64_t>() - held)}};
  }
  for (const auto& [key, limit] : Member(capacity, "quota").items()) {
    if (!limit.is_number_integer()) continue;
    report["quota"][key] = {{"limit", limit},
                            {"usedTpuApi", Used(world, QuotaApi::kTpu, key)},
                            {"usedCompute", Used(world, QuotaApi::kCompute, key)}};
  }
  return report;
}

std::optional<ChipDemand> TpuNodeDemand(const json& node) {
  if (NodeReserved(node)) return std::nullopt;
  auto slice = SliceOf(node);
  if (!slice) return std::nullopt;
  return ChipDemand{ZoneOfName(node.value("name", "")), slice->generation->family, NodeMode(node), slice->chips};
}

std::vector<ChipDemand> QueuedResourceDemand(const json& resource) {
  std::vector<ChipDemand> demands;
  if (QueuedResourceReserved(resource)) return demands;
  const bool spot = resource.contains("spot") || resource.value("provisioningModel", "") == "SPOT";
  for (const auto& spec : Member(Member(resource, "tpu"), "nodeSpec")) {
    auto slice = SliceOf(spec.value("node", json::object()));
    auto ids = NodeIdsOf(spec);
    if (!slice || !ids) continue;
    const std::string zone = ZoneOfName(spec.value("parent", "") + "/");
    demands.push_back({zone, slice->generation->family, spot ? CapacityMode::kSpot : CapacityMode::kOnDemand,
                       slice->chips * static_cast<int64_t>(ids->size())});
  }
  return demands;
}

std::vector<ChipDemand> NodePoolDemand(const json& cluster, const json& pool) {
  std::vector<ChipDemand> demands;
  const json config = pool.value("config", json::object());
  auto machine = TpuMachine(config.value("machineType", ""));
  if (!machine) return demands;
  const json affinity = config.value("reservationAffinity", json::object());
  if (affinity.value("consumeReservationType", "") == "SPECIFIC_RESERVATION") return demands;
  const bool spot = config.value("spot", false) || config.value("preemptible", false);
  // A pool's nodes are in its own locations, else the cluster's, else the zone of a zonal cluster.
  json zones = pool.value("locations", json::array());
  if (!zones.is_array() || zones.empty()) zones = cluster.value("locations", json::array());
  if (!zones.is_array() || zones.empty()) zones = json::array({cluster.value("location", "")});
  const int64_t chips = NodeCount(pool) * machine->second;
  for (const auto& zone : zones) {
    if (!zone.is_string() || !core::IsZone(zone.get<std::string>())) continue;
    demands.push_back(
        {zone.get<std::string>(), machine->first, spot ? CapacityMode::kSpot : CapacityMode::kOnDemand, chips});
  }
  return demands;
}

bool Fits(const json& world, const std::vector<ChipDemand>& demands) {
  std::map<std::string, int64_t> asked;
  for (const auto& demand : demands) asked[Key(demand.zone, demand.generation, demand.mode)] += demand.chips;
  for (const auto& [key, chips] : asked) {
    auto limit = Limit(world, "chips", key);
    if (limit && Held(world, key) + chips > *limit) return false;
  }
  return true;
}

std::optional<QuotaShortfall> QuotaShort(const json& world, QuotaApi api, const std::vector<ChipDemand>& demands) {
  std::map<std::string, std::pair<ChipDemand, int64_t>> asked;
  for (const auto& demand : demands) {
    const std::string region = core::RegionOf(demand.zone);
    auto& entry = asked[Key(region, demand.generation, demand.mode)];
    entry.first = demand;
    entry.first.zone = region;
    entry.second += demand.chips;
  }
  for (const auto& [key, entry] : asked) {
    auto limit = Limit(world, "quota", key);
    if (!limit) continue;
    const int64_t used = Used(world, api, key);
    if (used + entry.second > *limit) {
      return QuotaShortfall{entry.first.zone, entry.first.generation, entry.first.mode, *limit, used, entry.second};
    }
  }
  return std::nullopt;
}

}  // namespace tputrain::emulator
