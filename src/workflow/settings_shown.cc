#include "tputrain/workflow/settings_shown.h"

#include "tputrain/workflow/root.h"

namespace tputrain::workflow {

core::Result<std::vector<SettingShown>> ShowSettings(Root& root) {
  auto settings = root.Settings();
  if (!settings) return core::Fail(settings.error());
  std::vector<SettingShown> shown;
  for (const auto& spec : config::KnownSettings()) {
    const auto& setting = settings->Lookup(spec.key);
    shown.push_back({spec.key, setting.value, setting.source});
  }
  return shown;
}

nlohmann::json ToJson(const std::vector<SettingShown>& settings) {
  nlohmann::json json = nlohmann::json::object();
  for (const auto& setting : settings) {
    json[setting.key] = {{"value", setting.value ? nlohmann::json(*setting.value) : nlohmann::json(nullptr)},
                         {"source", setting.source}};
  }
  return json;
}

}  // namespace tputrain::workflow
