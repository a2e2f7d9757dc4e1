#pragma once

#include <map>
#include <string>
#include <string_view>

namespace tputrain::core {

// The google.rpc vocabulary, so that API errors map onto kinds by table.
enum class ErrorKind {
  kInvalidArgument,
  kNotFound,
  kAlreadyExists,
  kPermissionDenied,
  kUnauthenticated,
  kResourceExhausted,
  kFailedPrecondition,
  kAborted,
  kUnavailable,
  kDeadlineExceeded,
  kCancelled,
  kInternal,
};

// An error as a value. `http_status` is 0 when the error arose locally (bad flag, bad file),
// which is how the CLI tells a usage error (exit 2) from a server's 400 (exit 1).
struct Error {
  ErrorKind kind = ErrorKind::kInternal;
  std::string message;
  int http_status = 0;
  std::string reason;  // Google's ErrorInfo.reason, e.g. "RATE_LIMIT_EXCEEDED".
  std::string where;   // the API method or file, e.g. "tpu.nodes.create".
  // Google's ErrorInfo.metadata, e.g. {"service": "container.googleapis.com"} for SERVICE_DISABLED.
  std::map<std::string, std::string> metadata;

  static Error Usage(std::string message);
  static Error NoCredentials(std::string message);
  static Error Internal(std::string message);
  // The user stopped it (Ctrl-C): exit 130.
  static Error Cancelled(std::string message = "interrupted");
  static Error Make(ErrorKind kind, std::string message);
};

// google.rpc.Code (google/rpc/code.proto), by name and by number, in one table. Codes outside
// tputrain's vocabulary (UNKNOWN, UNIMPLEMENTED, DATA_LOSS) are kInternal; the name OUT_OF_RANGE
// is folded into kInvalidArgument.
std::string_view KindName(ErrorKind kind);            // "INVALID_ARGUMENT", as google.rpc.Code names it.
ErrorKind KindFromStatusName(std::string_view name);  // inverse of KindName; unknown → kInternal.
int RpcCode(ErrorKind kind);                          // 3 for kInvalidArgument
ErrorKind KindFromRpcCode(int code);                  // inverse of RpcCode; unknown → kInternal.
ErrorKind KindFromHttpStatus(int http_status);

bool IsUsageError(const Error& error);

// Exit codes, documented in README: 0 ok, 1 operation failed, 2 usage, 4 credentials,
// 130 interrupted.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitChangesPending = 3;
inline constexpr int kExitNoCredentials = 4;
inline constexpr int kExitInterrupted = 130;

int ExitCodeFor(const Error& error);

}  // namespace tputrain::core
