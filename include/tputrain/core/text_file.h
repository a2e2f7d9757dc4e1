#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "tputrain/core/result.h"

namespace tputrain::core {

// ReadFile (core/file.h), for a file that must hold text (a script, a value sent in JSON): content
// that is not UTF-8 fails with kInvalidArgument, "--setup: /x.sh is not UTF-8 text" (reason
// kFileNotText).
inline constexpr std::string_view kFileNotText = "FILE_NOT_TEXT";
Result<std::string> ReadTextFile(const std::string& path, std::string_view what, size_t max_bytes);

}  // namespace tputrain::core
