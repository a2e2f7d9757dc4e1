#pragma once

#include <chrono>
#include <cstddef>
#include <istream>
#include <string>
#include <string_view>

#include "tputrain/core/error.h"
#include "tputrain/core/result.h"

namespace tputrain::core {

// Error::reason of ReadFile's failures, for callers that treat one case apart (a missing state
// file is an empty one; a missing credentials file is exit 4).
inline constexpr std::string_view kFileNotFound = "FILE_NOT_FOUND";
inline constexpr std::string_view kFileIsDirectory = "FILE_IS_DIRECTORY";
inline constexpr std::string_view kFileUnreadable = "FILE_UNREADABLE";
inline constexpr std::string_view kFileTooLarge = "FILE_TOO_LARGE";

// The whole of the file at `path`, bytes as they are. Fails with kInvalidArgument (bad input:
// exit 2) and one line that starts with `what`, the flag or field that named the file:
//   "--values: cannot read /x.yaml"                      (missing; reason kFileNotFound)
//   "--values: cannot read /x.yaml (Permission denied)"  (reason kFileUnreadable)
//   "--values: /x is a directory"                        (reason kFileIsDirectory)
//   "--values: /x.yaml is larger than 1 MiB"             (reason kFileTooLarge)
//   "--values: /x is a pipe that gave nothing to read in 30 s"   (reason kFileUnreadable)
// An empty `what` leaves the prefix out. `max_bytes` keeps a wrong path (a disk image, /dev/zero)
// from filling memory; pick it from what the file can reasonably hold. A path that is not a
// regular file (a FIFO, process substitution's pipe, a device) is read as its writer gives bytes,
// to their end, and given up on when `pipe_wait` passes without the end: opening a FIFO that no
// one writes would otherwise wait for ever.
Result<std::string> ReadFile(const std::string& path, std::string_view what, size_t max_bytes,
                             std::chrono::milliseconds pipe_wait = std::chrono::seconds(30));

// The same for an open stream (standard input), named `name` in errors ("<stdin>").
Result<std::string> ReadStream(std::istream& in, const std::string& name, std::string_view what, size_t max_bytes);

bool IsFileNotFound(const Error& error);

inline constexpr size_t kKiB = 1024;
inline constexpr size_t kMiB = 1024 * kKiB;

}  // namespace tputrain::core
