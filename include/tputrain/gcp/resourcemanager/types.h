#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace tputrain::gcp::resourcemanager {

struct Project {
  std::string project_id;
  std::string project_number;  // int64 as a string, as the API sends it
  std::string lifecycle_state;
  nlohmann::json raw;
};

Project ProjectFromJson(const nlohmann::json& json);

}  // namespace tputrain::gcp::resourcemanager
