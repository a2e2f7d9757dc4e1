#include "tputrain/gcp/operations/poller.h"

namespace tputrain::gcp::operations {
namespace {

// google.rpc.Code numbers → kinds (https://github.com/googleapis/googleapis google/rpc/code.proto).
core::ErrorKind KindFromRpcCode(int code) {
  switch (code) {
    case 1:
      return core::ErrorKind::kCancelled;
    case 3:
      return core::ErrorKind::kInvalidArgument;
    case 4:
      return core::ErrorKind::kDeadlineExceeded;
    case 5:
      return core::ErrorKind::kNotFound;
    case 6:
      return core::ErrorKind::kAlreadyExists;
    case 7:
      return core::ErrorKind::kPermissionDenied;
    case 8:
      return core::ErrorKind::kResourceExhausted;
    case 9:
      return core::ErrorKind::kFailedPrecondition;
    case 10:
      return core::ErrorKind::kAborted;
    case 14:
      return core::ErrorKind::kUnavailable;
    case 16:
      return core::ErrorKind::kUnauthenticated;
    default:
      return core::ErrorKind::kInternal;
  }
}

}  // namespace

core::Status PollUntilDone(const std::function<core::Result<bool>()>& poll, const PollOptions& options,
                           const PollEnv& env) {
  if (!options.timeout_note.empty()) return core::PollUntil(poll, options, env);
  PollOptions noted = options;
  noted.timeout_note = "the operation goes on";
  return core::PollUntil(poll, noted, env);
}

core::Error ErrorFromRpcStatus(int code, const std::string& message, const std::string& where) {
  core::Error error = core::Error::Make(KindFromRpcCode(code), message);
  error.where = where;
  return error;
}

core::Result<container::Operation> WaitForContainerOperation(container::Client& client,
                                                             const container::LocationRef& location,
                                                             const std::string& name, const PollOptions& options,
                                                             const PollEnv& env, const ContainerProgress& progress) {
  container::Operation last;
  auto status = PollUntilDone(
      [&]() -> core::Result<bool> {
        auto op = client.GetOperation(location, name);
        if (!op) return core::Fail(op.error());
        last = std::move(*op);
        if (progress) progress(last);
        return last.done();
      },
      options, env);
  if (!status) return core::Fail(status.error());
  if (last.error && last.error->code != 0) {
    std::string message = last.status_message.empty() ? last.error->message : last.status_message;
    return core::Fail(ErrorFromRpcStatus(last.error->code, message, "container operation " + last.name));
  }
  if (!last.status_message.empty()) {
    // gcloud treats any statusMessage on a DONE operation as failure; so do we.
    return core::Fail(ErrorFromRpcStatus(2, last.status_message, "container operation " + last.name));
  }
  return last;
}

core::Result<tpu::Operation> WaitForTpuOperation(tpu::Client& client, const std::string& name,
                                                 const PollOptions& options, const PollEnv& env,
                                                 const TpuProgress& progress) {
  tpu::Operation last;
  auto status = PollUntilDone(
      [&]() -> core::Result<bool> {
        auto op = client.GetOperation(name);
        if (!op) return core::Fail(op.error());
        last = std::move(*op);
        if (progress) progress(last);
        return last.done;
      },
      options, env);
  if (!status) return core::Fail(status.error());
  if (last.error)
    return core::Fail(ErrorFromRpcStatus(last.error->code, last.error->message, "tpu operation " + last.name));
  return last;
}

}  // namespace tputrain::gcp::operations
