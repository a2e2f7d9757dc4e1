#pragma once

#include <map>
#include <string>

#include "tputrain/core/env.h"

namespace tputrain::config {

// gcloud's active named configuration: CLOUDSDK_CONFIG (or ~/.config/gcloud), the configuration
// named by CLOUDSDK_ACTIVE_CONFIG_NAME or the file `active_config` (else "default"), read from
// configurations/config_<NAME>.
struct GcloudConfig {
  std::string name;
  std::string path;
  std::map<std::string, std::string> values;  // "core/project" → "my-project"
};

std::string GcloudConfigDir(const core::Env& env);
GcloudConfig ReadActiveGcloudConfig(const core::Env& env);

// Parses gcloud's INI dialect: [section], key = value, ';' and '#' comments.
std::map<std::string, std::string> ParseIni(const std::string& text);

}  // namespace tputrain::config
