// A shell command printed for the user to run, fitted to the terminal without changing what it
// runs: broken between words with a backslash-newline, as a person would type it.
#include <string>
#include <vector>

#include "output/output.h"

namespace tputrain::cli {
namespace {

// The command's words as the shell splits them: a quoted ('...') or escaped (\x) space does not
// end a word, so that no break lands inside a quoted argument.
std::vector<std::string> ShellWords(std::string_view command) {
  std::vector<std::string> words;
  std::string word;
  bool quoted = false;
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (!quoted && c == ' ') {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
      continue;
    }
    word += c;
    if (c == '\'') {
      quoted = !quoted;
    } else if (!quoted && c == '\\' && i + 1 < command.size()) {
      word += command[++i];
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

}  // namespace

std::string FitCommand(std::string_view command, std::size_t first_line_used, std::size_t width) {
  constexpr std::string_view kIndent = "    ";
  constexpr std::string_view kContinue = " \\";
  if (width == 0 || first_line_used + DisplayWidth(command) <= width) return std::string(command);
  std::string fitted;
  std::size_t used = first_line_used;
  bool line_has_word = false;
  for (const auto& word : ShellWords(command)) {
    const std::size_t needed = (line_has_word ? 1 : 0) + DisplayWidth(word) + kContinue.size();
    if (line_has_word && used + needed > width) {
      fitted += kContinue;
      fitted += "\n";
      fitted += kIndent;
      used = kIndent.size();
      line_has_word = false;
    }
    if (line_has_word) {
      fitted += ' ';
      ++used;
    }
    fitted += word;
    used += DisplayWidth(word);
    line_has_word = true;
  }
  return fitted;
}

}  // namespace tputrain::cli
