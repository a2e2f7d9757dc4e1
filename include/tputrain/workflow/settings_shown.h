#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"

// `config show`: every setting tputrain knows, as the root resolved it (flags > environment >
// tputrain.yaml > gcloud's configuration), with where its value came from.
namespace tputrain::workflow {

class Root;

struct SettingShown {
  std::string key;
  std::optional<std::string> value;
  std::string source;  // "--project", "TPUTRAIN_PROJECT", "gcloud config", "unset", ...
};

core::Result<std::vector<SettingShown>> ShowSettings(Root& root);

// {KEY: {"value": VALUE or null, "source": SOURCE}, ...}
nlohmann::json ToJson(const std::vector<SettingShown>& settings);

}  // namespace tputrain::workflow
