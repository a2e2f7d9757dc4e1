#include "tpu_guest_attributes.h"

#include "tputrain/core/number.h"

namespace tputrain::emulator {

using nlohmann::json;

void StoreGuestAttribute(json& node, int worker, const std::string& name_space, const std::string& key,
                         const std::string& value) {
  node["_guestAttributes"][std::to_string(worker)][name_space][key] = value;
}

std::optional<std::string> FindGuestAttribute(const json& node, int worker, const std::string& name_space,
                                              const std::string& key) {
  const json::json_pointer pointer("/_guestAttributes/" + std::to_string(worker));
  if (!node.contains(pointer)) return std::nullopt;
  const json& spaces = node.at(pointer);
  auto space = spaces.find(name_space);
  if (space == spaces.end()) return std::nullopt;
  auto value = space->find(key);
  if (value == space->end() || !value->is_string()) return std::nullopt;
  return value->get<std::string>();
}

json GuestAttributeItems(const json& node, int worker, const std::string& query_path) {
  std::string path = query_path;
  if (!path.empty() && path.front() == '/') path.erase(0, 1);
  std::string wanted_space = path.substr(0, path.find('/'));
  std::string wanted_key = path.find('/') == std::string::npos ? "" : path.substr(path.find('/') + 1);
  json items = json::array();
  const json::json_pointer pointer("/_guestAttributes/" + std::to_string(worker));
  if (!node.contains(pointer)) return items;
  const json spaces = node.at(pointer);
  for (const auto& [name_space, keys] : spaces.items()) {
    if (!wanted_space.empty() && name_space != wanted_space) continue;
    for (const auto& [key, value] : keys.items()) {
      if (!wanted_key.empty() && key != wanted_key) continue;
      items.push_back({{"namespace", name_space}, {"key", key}, {"value", value}});
    }
  }
  return items;
}

core::Result<std::vector<int>> SelectWorkers(const json& worker_ids, int workers) {
  std::vector<int> selected;
  bool all = true;
  for (const auto& id : worker_ids) {
    if (id.is_string() && id.get<std::string>().empty()) continue;  // gcloud asks for all with [""]
    all = false;
    std::string text = id.is_string() ? id.get<std::string>() : id.dump();
    auto number = core::ParseWhole("workerIds", text, 0, workers - 1);
    if (!number) {
      return core::Fail(core::Error::Usage("Invalid worker id \"" + text + "\": the node has " +
                                           std::to_string(workers) + " worker(s), numbered from 0."));
    }
    selected.push_back(static_cast<int>(*number));
  }
  if (all) {
    for (int worker = 0; worker < workers; ++worker) selected.push_back(worker);
  }
  return selected;
}

}  // namespace tputrain::emulator
