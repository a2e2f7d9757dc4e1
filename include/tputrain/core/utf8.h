#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tputrain::core {

// True when `text` is well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing
// past U+10FFFF. JSON strings must be, so a text that is not cannot go into one unchanged.
bool IsValidUtf8(std::string_view text);

// At most `max_bytes` of `text`, for quoting what a server or a program said: each byte that is
// not part of well-formed UTF-8 becomes U+FFFD and the cut falls between characters, so the
// excerpt can go into JSON (a ledger entry, --format json) as it is. `cut` is appended when
// something was left out.
std::string Utf8Excerpt(std::string_view text, std::size_t max_bytes, std::string_view cut = "");

// The same on one line: the server's line breaks and tabs become spaces (a run of blanks one), so
// what it said stays one line of a one-line error.
std::string OneLineExcerpt(std::string_view text, std::size_t max_bytes, std::string_view cut = "");

}  // namespace tputrain::core
