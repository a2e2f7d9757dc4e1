#pragma once

#include <string_view>

namespace tputrain::core {

// True when `text` is well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing
// past U+10FFFF. JSON strings must be, so a text that is not cannot go into one unchanged.
bool IsValidUtf8(std::string_view text);

}  // namespace tputrain::core
