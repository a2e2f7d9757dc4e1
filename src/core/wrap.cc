#include "tputrain/core/wrap.h"

#include <vector>

namespace tputrain::core {
namespace {

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The byte offset `columns` code points into `text` (its size when it is shorter).
std::size_t OffsetOfColumn(std::string_view text, std::size_t columns) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (IsContinuationByte(text[i])) continue;
    if (seen == columns) return i;
    ++seen;
  }
  return text.size();
}

// Where a broken line's continuation starts (see WrapToWidth), at most half the width.
std::size_t HangingIndent(std::string_view line, std::size_t width) {
  const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
  std::size_t hanging = indent;
  const std::size_t word_end = std::min(line.find(' ', indent), line.size());
  const std::string_view first_word = line.substr(indent, word_end - indent);
  const std::size_t gap = line.find("  ", indent);
  // A label opens a message ("why:", "WARNING:"); deeper in, a word ending in ':' is just prose.
  if (indent <= 2 && first_word.size() > 1 && first_word.size() <= 16 && first_word.back() == ':' &&
      word_end < line.size()) {
    hanging = DisplayColumns(line.substr(0, word_end + 1));  // "why: ", "WARNING: "
  } else if (gap != std::string_view::npos) {
    const std::size_t text = line.find_first_not_of(' ', gap);
    if (text != std::string_view::npos) hanging = DisplayColumns(line.substr(0, text));
  }
  return hanging <= width / 2 ? hanging : std::min(indent, width / 2);
}

// An example command ("  tputrain cluster create ..." in a --help): broken as a shell continues
// it, so that it still runs when pasted.
bool IsCommand(std::string_view line) {
  const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
  const std::string_view text = line.substr(indent);
  return text.rfind("tputrain ", 0) == 0 || text.rfind("sudo tputrain ", 0) == 0;
}

void WrapLine(std::string_view line, std::size_t full_width, std::string& out) {
  if (DisplayColumns(line) <= full_width || line.find_first_of("\r\x1b") != std::string_view::npos) {
    out += line;
    return;
  }
  const bool command = IsCommand(line) && full_width > 20;
  const std::size_t width = command ? full_width - 2 : full_width;  // room for " \\"
  const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
  const std::string continuation(command ? std::min(indent + 4, width / 2) : HangingIndent(line, width), ' ');
  std::string current;
  std::size_t current_columns = 0;
  const auto flush = [&] {
    out += current;
    out += command ? " \\\n" : "\n";
    current = continuation;
    current_columns = continuation.size();
  };
  // The line's own indent stays as it is; after that, words and the spaces before each.
  std::size_t at = std::min(line.find_first_not_of(' '), line.size());
  current.assign(line.substr(0, at));
  current_columns = at;
  bool first_word = true;
  while (at < line.size()) {
    const std::size_t word_start = std::min(line.find_first_not_of(' ', at), line.size());
    const std::string_view spaces = line.substr(at, word_start - at);
    if (word_start == line.size()) break;  // trailing spaces go
    const std::size_t word_end = std::min(line.find(' ', word_start), line.size());
    std::string_view word = line.substr(word_start, word_end - word_start);
    const std::size_t word_columns = DisplayColumns(word);
    if (!first_word && current_columns + spaces.size() + word_columns > width) {
      flush();
    } else if (!first_word) {
      current += spaces;
      current_columns += spaces.size();
    }
    // A word wider than a whole line: cut it where the line ends, as often as it takes.
    while (current_columns + DisplayColumns(word) > width && current_columns < width) {
      const std::size_t cut = OffsetOfColumn(word, width - current_columns);
      current += word.substr(0, cut);
      word.remove_prefix(cut);
      flush();
    }
    current += word;
    current_columns += DisplayColumns(word);
    first_word = false;
    at = word_end;
  }
  out += current;
}

}  // namespace

std::size_t DisplayColumns(std::string_view text) {
  std::size_t columns = 0;
  for (char c : text) columns += IsContinuationByte(c) ? 0 : 1;
  return columns;
}

std::string WrapToWidth(std::string_view text, std::size_t width) {
  if (width == 0) return std::string(text);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    WrapLine(text.substr(0, end), width, out);
    if (end == std::string_view::npos) break;
    out += '\n';
    text.remove_prefix(end + 1);
  }
  return out;
}

}  // namespace tputrain::core
