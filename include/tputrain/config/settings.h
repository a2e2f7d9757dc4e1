#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tputrain/core/env.h"
#include "tputrain/core/result.h"

namespace tputrain::config {

// One resolved value and where it came from, e.g. "flag --project", "env CLOUDSDK_CORE_PROJECT",
// "tputrain.yaml (/ci/tputrain.yaml)", "gcloud config 'default' (core/project)".
struct Setting {
  std::optional<std::string> value;
  std::string source = "unset";

  // Where to look for it, for an error about its value: "--project", "TPUTRAIN_PROJECT", or
  // `key` and the source ("project (tputrain.yaml (/ci/tputrain.yaml))").
  std::string FieldName(const std::string& key) const;
};

// A key tputrain reads, and the names it goes by at each level of precedence.
struct SettingSpec {
  std::string key;                       // also the tputrain.yaml key
  std::string flag;                      // "" when there is no global flag
  std::vector<std::string> env_vars;     // in order of preference
  std::vector<std::string> gcloud_keys;  // "section/name" in gcloud's configuration
};

const std::vector<SettingSpec>& KnownSettings();

class Settings {
 public:
  const Setting& Lookup(const std::string& key) const;
  std::optional<std::string> Get(const std::string& key) const { return Lookup(key).value; }
  // The value, or a usage error saying every way to set it.
  core::Result<std::string> Require(const std::string& key) const;
  void Put(const std::string& key, Setting setting) { values_[key] = std::move(setting); }
  const std::map<std::string, Setting>& all() const { return values_; }

 private:
  std::map<std::string, Setting> values_;
};

struct SettingsSources {
  std::map<std::string, std::string> flags;  // key → value given on the command line
  core::Env env;
  std::string config_file;  // --config; empty: ./tputrain.yaml when it exists
  std::string working_dir;  // where ./tputrain.yaml is looked for
};

// Precedence: flags > environment > tputrain.yaml > gcloud's active configuration.
core::Result<Settings> ResolveSettings(const SettingsSources& sources);

}  // namespace tputrain::config
