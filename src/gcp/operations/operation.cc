#include "tputrain/gcp/operations/operation.h"

#include "tputrain/core/json_fields.h"

namespace tputrain::gcp::operations {
namespace {

using nlohmann::json;

}  // namespace

Operation OperationFromJson(const json& body) {
  Operation op;
  if (!body.is_object()) return op;
  op.name = core::StringAt(body, "name");
  auto done = body.find("done");
  op.done = done != body.end() && done->is_boolean() && done->get<bool>();
  // An operation ends with an error or a response: an error without a code is still a failure
  // (google.rpc.Code UNKNOWN).
  if (auto error = body.find("error"); error != body.end() && error->is_object()) {
    auto code = error->find("code");
    op.error = RpcStatus{code != error->end() && code->is_number_integer() ? code->get<int>() : 2,
                         core::StringAt(*error, "message")};
  }
  op.response = body.value("response", json());
  op.metadata = body.value("metadata", json());
  op.raw = body;
  return op;
}

core::Error ErrorFromRpcStatus(const RpcStatus& status, const std::string& where) {
  core::Error error = core::Error::Make(core::KindFromRpcCode(status.code), status.message);
  error.where = where;
  return error;
}

}  // namespace tputrain::gcp::operations
