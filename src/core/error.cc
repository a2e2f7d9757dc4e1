#include "tputrain/core/error.h"

#include <array>
#include <utility>

namespace tputrain::core {
namespace {

constexpr std::array<std::pair<ErrorKind, std::string_view>, 12> kNames{{
    {ErrorKind::kInvalidArgument, "INVALID_ARGUMENT"},
    {ErrorKind::kNotFound, "NOT_FOUND"},
    {ErrorKind::kAlreadyExists, "ALREADY_EXISTS"},
    {ErrorKind::kPermissionDenied, "PERMISSION_DENIED"},
    {ErrorKind::kUnauthenticated, "UNAUTHENTICATED"},
    {ErrorKind::kResourceExhausted, "RESOURCE_EXHAUSTED"},
    {ErrorKind::kFailedPrecondition, "FAILED_PRECONDITION"},
    {ErrorKind::kAborted, "ABORTED"},
    {ErrorKind::kUnavailable, "UNAVAILABLE"},
    {ErrorKind::kDeadlineExceeded, "DEADLINE_EXCEEDED"},
    {ErrorKind::kCancelled, "CANCELLED"},
    {ErrorKind::kInternal, "INTERNAL"},
}};

}  // namespace

Error Error::Usage(std::string message) { return Make(ErrorKind::kInvalidArgument, std::move(message)); }
Error Error::NoCredentials(std::string message) { return Make(ErrorKind::kUnauthenticated, std::move(message)); }
Error Error::Internal(std::string message) { return Make(ErrorKind::kInternal, std::move(message)); }
Error Error::Make(ErrorKind kind, std::string message) {
  Error error;
  error.kind = kind;
  error.message = std::move(message);
  return error;
}

std::string_view KindName(ErrorKind kind) {
  for (const auto& [k, name] : kNames) {
    if (k == kind) return name;
  }
  return "INTERNAL";
}

ErrorKind KindFromStatusName(std::string_view name) {
  for (const auto& [kind, n] : kNames) {
    if (n == name) return kind;
  }
  // google.rpc names that tputrain folds into its vocabulary.
  if (name == "OUT_OF_RANGE") return ErrorKind::kInvalidArgument;
  if (name == "DEADLINE_EXCEEDED") return ErrorKind::kDeadlineExceeded;
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
