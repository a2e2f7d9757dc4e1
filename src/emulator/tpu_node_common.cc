#include "tpu_node_common.h"

#include "operations.h"

namespace tputrain::emulator {

using core::ErrorKind;
using nlohmann::json;

std::string TpuParent(const Call& call) { return "projects/" + call.args[0] + "/locations/" + call.args[1]; }

ApiResponse TpuNotFound(const std::string& name) {
  return Aip193Error(ErrorKind::kNotFound, "Resource '" + name + "' was not found",
                     json::array({ResourceInfoDetail("tpu.googleapis.com", name)}));
}

json StartTpuOperation(Call& call, const std::string& verb, const std::string& target, const json& response) {
  std::string name = TpuParent(call) + "/operations/" + NewOperationId(call.world, call.now_ms);
  json op = {{"name", name},
             {"metadata",
              {{"@type", "type.googleapis.com/google.cloud.tpu.v2.OperationMetadata"},
               {"createTime", Rfc3339(call.now_ms)},
               {"target", target},
               {"verb", verb},
               {"cancelRequested", false},
               {"apiVersion", "v2"}}},
             {"done", false},
             {"_target", target},
             {"_response", response}};
  StartOperationTimer(op, call);
  call.world["tpuOperations"][name] = op;
  call.mutated = true;
  return op;
}

}  // namespace tputrain::emulator
