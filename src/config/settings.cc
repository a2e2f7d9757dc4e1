#include "tputrain/config/settings.h"

#include <filesystem>

#include <yaml-cpp/yaml.h>

#include "gcloud_config.h"
#include "tputrain/core/file.h"
#include "tputrain/yaml/bounded.h"

namespace tputrain::config {
namespace {

core::Result<std::map<std::string, std::string>> ReadYamlConfig(const std::string& path) {
  auto text = core::ReadFile(path, "", 1 * core::kMiB);
  if (!text) return core::Fail(text.error());
  auto loaded = yaml::Load(*text, path);
  if (!loaded) return core::Fail(loaded.error());
  const YAML::Node& root = *loaded;
  std::map<std::string, std::string> values;
  if (root.IsNull()) return values;
  if (!root.IsMap()) return core::Fail(core::Error::Usage(path + ": expected a mapping of settings"));
  for (const auto& entry : root) {
    auto key = entry.first.as<std::string>();
    bool known = false;
    for (const auto& spec : KnownSettings()) known = known || spec.key == key;
    if (!known) {
      std::string names;
      for (const auto& spec : KnownSettings()) names += (names.empty() ? "" : ", ") + spec.key;
      return core::Fail(core::Error::Usage(path + ": unknown setting '" + key + "'; expected one of " + names));
    }
    if (!entry.second.IsScalar()) {
      return core::Fail(core::Error::Usage(path + ": setting '" + key + "' must be a single value"));
    }
    values[key] = entry.second.as<std::string>();
  }
  return values;
}

}  // namespace

const std::vector<SettingSpec>& KnownSettings() {
  static const std::vector<SettingSpec> specs = {
      {"project", "--project", {"TPUTRAIN_PROJECT", "CLOUDSDK_CORE_PROJECT"}, {"core/project"}},
      {"location",
       "--location",
       {"TPUTRAIN_LOCATION", "CLOUDSDK_COMPUTE_ZONE", "CLOUDSDK_COMPUTE_REGION"},
       {"compute/zone", "compute/region"}},
      {"cluster", "", {"TPUTRAIN_CLUSTER"}, {"container/cluster"}},
      {"bucket", "", {"TPUTRAIN_BUCKET"}, {}},
      // The project billed for API quota, sent as x-goog-user-project (gcloud's billing/quota_project).
      {"quota_project", "--billing-project", {"CLOUDSDK_BILLING_QUOTA_PROJECT"}, {"billing/quota_project"}},
      {"ray_address", "", {"TPUTRAIN_RAY_ADDRESS", "RAY_ADDRESS"}, {}},
  };
  return specs;
}

std::string Setting::FieldName(const std::string& key) const {
  for (std::string_view prefix : {"flag ", "env "}) {
    if (source.rfind(prefix, 0) == 0) return source.substr(prefix.size());
  }
  return key + " (" + source + ")";
}

const Setting& Settings::Lookup(const std::string& key) const {
  static const Setting kUnset;
  auto it = values_.find(key);
  return it == values_.end() ? kUnset : it->second;
}

core::Result<std::string> Settings::Require(const std::string& key) const {
  if (auto value = Get(key)) return *value;
  for (const auto& spec : KnownSettings()) {
    if (spec.key != key) continue;
    std::string ways;
    if (!spec.flag.empty()) ways += spec.flag;
    for (const auto& var : spec.env_vars) ways += (ways.empty() ? "" : ", ") + var;
    ways += (ways.empty() ? "" : ", ") + std::string("'") + key + "' in tputrain.yaml";
    for (const auto& gcloud_key : spec.gcloud_keys) ways += ", gcloud config " + gcloud_key;
    return core::Fail(core::Error::Usage("no " + key + " set: use " + ways));
  }
  return core::Fail(core::Error::Usage("no " + key + " set"));
}

core::Result<Settings> ResolveSettings(const SettingsSources& sources) {
  std::string yaml_path = sources.config_file;
  if (yaml_path.empty()) {
    auto candidate = std::filesystem::path(sources.working_dir.empty() ? "." : sources.working_dir) / "tputrain.yaml";
    std::error_code ec;
    if (std::filesystem::exists(candidate, ec)) yaml_path = candidate.string();
  }
  std::map<std::string, std::string> yaml_values;
  if (!yaml_path.empty()) {
    auto loaded = ReadYamlConfig(yaml_path);
    if (!loaded) return core::Fail(loaded.error());
    yaml_values = std::move(*loaded);
  }
  GcloudConfig gcloud = ReadActiveGcloudConfig(sources.env);

  Settings settings;
  for (const auto& spec : KnownSettings()) {
    Setting setting;
    if (auto flag = sources.flags.find(spec.key); flag != sources.flags.end() && !flag->second.empty()) {
      setting = {flag->second, "flag " + spec.flag};
    } else {
      for (const auto& var : spec.env_vars) {
        if (auto value = sources.env.Get(var)) {
          setting = {*value, "env " + var};
          break;
        }
      }
      if (!setting.value) {
        if (auto it = yaml_values.find(spec.key); it != yaml_values.end()) {
          setting = {it->second, "tputrain.yaml (" + yaml_path + ")"};
        }
      }
      if (!setting.value) {
        for (const auto& gcloud_key : spec.gcloud_keys) {
          if (auto it = gcloud.values.find(gcloud_key); it != gcloud.values.end() && !it->second.empty()) {
            setting = {it->second, "gcloud config '" + gcloud.name + "' (" + gcloud_key + ")"};
            break;
          }
        }
      }
    }
    settings.Put(spec.key, setting);
  }
  return settings;
}

}  // namespace tputrain::config
