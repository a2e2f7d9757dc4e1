// Every --help (each command's, found by walking the command tree from `tputrain --help`, and the
// emulator's) on an 80-column terminal: no line wider, no internal word.
#include <catch2/catch.hpp>

#include "testing/terminal_screen.h"

namespace tputrain::testing {
namespace {

// The commands a --help lists under "Subcommands:", each line "  NAME  description".
std::vector<std::string> Subcommands(const std::vector<std::string>& lines) {
  std::vector<std::string> names;
  bool in_list = false;
  for (const auto& line : lines) {
    if (line == "Subcommands:") {
      in_list = true;
      continue;
    }
    if (!in_list) continue;
    if (line.empty() || line[0] != ' ') break;
    if (line.size() > 2 && line[2] != ' ') names.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  return names;
}

}  // namespace

TEST_CASE("every --help fits an 80-column terminal and speaks the user's words") {
  std::vector<std::vector<std::string>> pending = {{}};
  std::size_t helps = 0;
  while (!pending.empty()) {
    auto path = pending.back();
    pending.pop_back();
    auto args = path;
    args.push_back("--help");
    const Screen help = OnTerminal(args);
    std::string name = "tputrain";
    for (const auto& word : path) name += " " + word;
    INFO(name << " --help");
    CHECK(help.exit_code == 0);
    FitsAndSpeaksPlainly(name + " --help", help);
    ++helps;
    if (path == std::vector<std::string>{"emulator", "start"}) continue;  // the emulator's own flags
    for (const auto& command : Subcommands(help.lines)) {
      auto deeper = path;
      deeper.push_back(command);
      pending.push_back(deeper);
    }
  }
  CHECK(helps > 60);  // every command and subcommand, the emulator's start too
}

}  // namespace tputrain::testing
