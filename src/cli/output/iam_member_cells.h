#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "output/resource_cells.h"

// IAM members and service accounts as a table shows them (resource_cells.h).
namespace tputrain::cli {

// NAME@PROJECT.iam.gserviceaccount.com → NAME@PROJECT: the project still says which.
std::string ShortEmail(const std::string& email);

// "ROLE for MEMBER" (a Kubernetes service account as "ksa NS/NAME", in either of workload
// identity's spellings), and the resource the role is on ("bucket B"); from the details, else the
// key (TARGET/RESOURCE|ROLE|MEMBER).
ResourceCells IamMemberCells(const std::string& key, const nlohmann::json& details);

}  // namespace tputrain::cli
