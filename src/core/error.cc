#include "tputrain/core/error.h"

#include <array>
#include <utility>

namespace tputrain::core {
namespace {

struct RpcCodeRow {
  ErrorKind kind;
  std::string_view name;
  int code;
};

constexpr std::array<RpcCodeRow, 12> kRpcCodes{{
    {ErrorKind::kInvalidArgument, "INVALID_ARGUMENT", 3},
    {ErrorKind::kNotFound, "NOT_FOUND", 5},
    {ErrorKind::kAlreadyExists, "ALREADY_EXISTS", 6},
    {ErrorKind::kPermissionDenied, "PERMISSION_DENIED", 7},
    {ErrorKind::kUnauthenticated, "UNAUTHENTICATED", 16},
    {ErrorKind::kResourceExhausted, "RESOURCE_EXHAUSTED", 8},
    {ErrorKind::kFailedPrecondition, "FAILED_PRECONDITION", 9},
    {ErrorKind::kAborted, "ABORTED", 10},
    {ErrorKind::kUnavailable, "UNAVAILABLE", 14},
    {ErrorKind::kDeadlineExceeded, "DEADLINE_EXCEEDED", 4},
    {ErrorKind::kCancelled, "CANCELLED", 1},
    {ErrorKind::kInternal, "INTERNAL", 13},
}};

const RpcCodeRow& RowOf(ErrorKind kind) {
  for (const auto& row : kRpcCodes) {
    if (row.kind == kind) return row;
  }
  return kRpcCodes.back();  // kInternal
}

}  // namespace

Error Error::Usage(std::string message) { return Make(ErrorKind::kInvalidArgument, std::move(message)); }
Error Error::NoCredentials(std::string message) { return Make(ErrorKind::kUnauthenticated, std::move(message)); }
Error Error::Internal(std::string message) { return Make(ErrorKind::kInternal, std::move(message)); }
Error Error::Cancelled(std::string message) { return Make(ErrorKind::kCancelled, std::move(message)); }
Error Error::Make(ErrorKind kind, std::string message) {
  Error error;
  error.kind = kind;
  error.message = std::move(message);
  return error;
}

std::string_view KindName(ErrorKind kind) { return RowOf(kind).name; }

ErrorKind KindFromStatusName(std::string_view name) {
  for (const auto& row : kRpcCodes) {
    if (row.name == name) return row.kind;
  }
  if (name == "OUT_OF_RANGE") return ErrorKind::kInvalidArgument;
  return ErrorKind::kInternal;
}

int RpcCode(ErrorKind kind) { return RowOf(kind).code; }

ErrorKind KindFromRpcCode(int code) {
  for (const auto& row : kRpcCodes) {
    if (row.code == code) return row.kind;
  }
  return ErrorKind::kInternal;
}

// The HTTP mapping of google.rpc.Code (google/rpc/code.proto).
ErrorKind KindFromHttpStatus(int http_status) {
  switch (http_status) {
    case 400:
      return ErrorKind::kInvalidArgument;
    case 401:
      return ErrorKind::kUnauthenticated;
    case 403:
      return ErrorKind::kPermissionDenied;
    case 404:
      return ErrorKind::kNotFound;
    case 409:
      return ErrorKind::kAborted;
    case 412:
      return ErrorKind::kFailedPrecondition;
    case 429:
      return ErrorKind::kResourceExhausted;
    case 499:
      return ErrorKind::kCancelled;
    case 502:
    case 503:
      return ErrorKind::kUnavailable;
    case 504:
      return ErrorKind::kDeadlineExceeded;
    default:
      return ErrorKind::kInternal;
  }
}

bool IsUsageError(const Error& error) { return error.kind == ErrorKind::kInvalidArgument && error.http_status == 0; }

int ExitCodeFor(const Error& error) {
  if (IsUsageError(error)) return kExitUsage;
  if (error.kind == ErrorKind::kUnauthenticated) return kExitNoCredentials;
  if (error.kind == ErrorKind::kCancelled) return kExitInterrupted;
  return kExitFailed;
}

}  // namespace tputrain::core
