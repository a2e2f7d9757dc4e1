#include "tputrain/gcp/operations/wait.h"

namespace tputrain::gcp::operations {

core::Status PollUntilDone(const std::function<core::Result<bool>()>& poll, const PollOptions& options,
                           const PollEnv& env) {
  if (!options.timeout_note.empty()) return core::PollUntil(poll, options, env);
  PollOptions noted = options;
  noted.timeout_note = "the operation goes on";
  return core::PollUntil(poll, noted, env);
}

Waiting<Operation> LongRunning(std::function<core::Result<Operation>()> get, std::string where) {
  return {std::move(get), [](const Operation& op) { return op.done; },
          [said_where = std::move(where)](const Operation& op) -> std::optional<core::Error> {
            if (!op.error) return std::nullopt;
            return ErrorFromRpcStatus(*op.error, said_where);
          }};
}

}  // namespace tputrain::gcp::operations
