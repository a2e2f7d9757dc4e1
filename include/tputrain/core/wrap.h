#pragma once

#include <cstddef>
#include <string>
#include <string_view>

// Prose fitted to a terminal's width.
namespace tputrain::core {

// The columns `text` takes on a terminal: its UTF-8 code points (what tputrain prints is
// PrintableText: no control characters, no wide scripts in its own words).
std::size_t DisplayColumns(std::string_view text);

// `text` with every line wider than `width` columns broken at spaces into lines that fit, as a
// person would wrap it; 0 leaves it as it is (piped output stays whole). A broken line's
// continuation lines are indented to where its text column starts: after a leading label such as
// "why:" or "WARNING:", or after the first gap of two spaces (a --help flag's description, a
// key and its value), else at the line's own indent. A word wider than the room left is cut
// between characters. An example command (a line that starts "tputrain " or "sudo tputrain ")
// breaks as a shell continues one, " \" at each broken end, so that it still runs when pasted.
// Lines holding a carriage return or an escape sequence (a live progress line) are left alone:
// whoever drew them fitted them.
std::string WrapToWidth(std::string_view text, std::size_t width);

}  // namespace tputrain::core
