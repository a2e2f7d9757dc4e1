#include "tputrain/gcp/operations/long_running.h"

namespace tputrain::gcp::operations {

LongRunningOperation LongRunningOperationFromJson(const nlohmann::json& body) {
  LongRunningOperation op;
  if (!body.is_object()) return op;
  op.name = body.value("name", "");
  op.done = body.value("done", false);
  if (auto error = body.find("error"); error != body.end() && error->is_object()) {
    op.error_code = error->value("code", 2);
    op.error_message = error->value("message", "");
  }
  return op;
}

}  // namespace tputrain::gcp::operations
