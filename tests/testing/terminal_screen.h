#pragma once

// What a person at an 80-column terminal reads: tputrain run with stdout and stderr both on a
// pseudo-terminal, its output as the screen shows it, and the checks every such line must pass.
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "testing/pty_process.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {

inline constexpr unsigned short kTerminalColumns = 80;

inline std::size_t ScreenColumns(const std::string& line) {
  std::size_t columns = 0;
  for (char c : line) columns += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return columns;
}

// The lines as the terminal shows them: a live progress line is rewritten in place ("\r", then
// the escapes that move up and clear), so only the text after its last carriage return stays.
inline std::vector<std::string> ScreenLines(const std::string& output) {
  static const std::regex kEscape("\x1b\\[[0-9;]*[A-Za-z]");
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // the terminal's ONLCR
    if (const auto cr = line.rfind('\r'); cr != std::string::npos) line = line.substr(cr + 1);
    lines.push_back(std::regex_replace(line, kEscape, ""));
  }
  return lines;
}

struct Screen {
  int exit_code = -1;
  std::vector<std::string> lines;
  std::string text;
};

// tputrain ARGS with stdout and stderr on an 80-column terminal, COLUMNS=80 too.
inline Screen OnTerminal(const std::vector<std::string>& args, std::map<std::string, std::string> env = {}) {
  std::vector<std::string> argv = {TputrainBinary()};
  argv.insert(argv.end(), args.begin(), args.end());
  env["COLUMNS"] = std::to_string(kTerminalColumns);
  PtyProcess process(argv, env, kTerminalColumns);
  process.ReadUntil("\x01 never printed", std::chrono::seconds(180));  // to the end of its output
  Screen screen;
  screen.exit_code = process.Wait();
  screen.text = process.output();
  screen.lines = ScreenLines(screen.text);
  return screen;
}

// No line wider than the terminal, and none with the project's internal words: "seed" (the guides
// the tutorials follow) or "played" (a test's pod). A user never met them.
inline void FitsAndSpeaksPlainly(const std::string& what, const Screen& screen) {
  static const std::regex kInternal("\\b(seed|seeds|played)\\b", std::regex::icase);
  INFO(what << "\n" << screen.text);
  for (const auto& line : screen.lines) {
    INFO(line);
    CHECK(ScreenColumns(line) <= kTerminalColumns);
    CHECK_FALSE(std::regex_search(line, kInternal));
  }
}

}  // namespace tputrain::testing
