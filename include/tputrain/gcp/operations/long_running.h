#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace tputrain::gcp::operations {

// google.longrunning.Operation as Service Usage and Artifact Registry return it: whether it is
// done, and the google.rpc.Status of a failed one.
struct LongRunningOperation {
  std::string name;
  bool done = false;
  int error_code = 0;  // google.rpc.Code; 0 when it has not failed
  std::string error_message;
};

LongRunningOperation LongRunningOperationFromJson(const nlohmann::json& body);

}  // namespace tputrain::gcp::operations
