#pragma once

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

namespace tputrain::yaml {

// A loaded document as JSON, its plain scalars resolved as YAML 1.1 does (go-yaml v2, which
// sigs.k8s.io/yaml uses, and PyYAML, which the Ray CLI loads a runtime env with): null, ~ and ""
// are null; true/false, yes/no, on/off in their three spellings are booleans; decimal, 0x hex
// and 0 octal integers (underscores allowed) and floats are numbers; anything else, and every
// quoted scalar, is a string. A map key is its text. Load it through yaml::Load first (bounded).
nlohmann::json ToJson(const YAML::Node& node);

}  // namespace tputrain::yaml
