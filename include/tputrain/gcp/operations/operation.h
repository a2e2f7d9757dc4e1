#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tputrain/core/error.h"

namespace tputrain::gcp::operations {

// google.rpc.Status, as a failed operation carries it.
struct RpcStatus {
  int code = 0;  // google.rpc.Code
  std::string message;
};

// google.longrunning.Operation: what Cloud TPU (nodes and queued resources), Service Usage,
// Artifact Registry and Cloud Build answer a mutation with. GKE's and Compute Engine's
// operations have shapes of their own (container::Operation, compute::Operation).
struct Operation {
  std::string name;  // "projects/P/locations/L/operations/ID"
  bool done = false;
  std::optional<RpcStatus> error;  // a done operation that failed
  nlohmann::json response;
  nlohmann::json metadata;
  nlohmann::json raw;
};

Operation OperationFromJson(const nlohmann::json& body);

// The Error a google.rpc.Status stands for: the kind of its code, the server's message.
core::Error ErrorFromRpcStatus(const RpcStatus& status, const std::string& where);

}  // namespace tputrain::gcp::operations
