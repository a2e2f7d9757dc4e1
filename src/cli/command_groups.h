#pragma once

#include <span>
#include <string_view>

#include <CLI/CLI.hpp>

#include "tputrain/cli/context.h"

namespace tputrain::cli {

// The top-level commands, by the function that adds them to the tree, in --help's order.
// Building the whole tree (some 150 commands and their flags) was a quarter of a request-sending
// command's time before its first byte; `tputrain CMD ...` builds CMD's group alone.
struct CommandGroup {
  std::string_view names;  // the top-level commands it adds, space-separated
  void (*setup)(CLI::App& root, Context& context);
};
std::span<const CommandGroup> CommandGroups();

// The group that adds the top-level command `word`, or null.
const CommandGroup* GroupOf(std::string_view word);

// The command word of `argv`: its first word that is neither a global flag nor a global flag's
// value; "" when that is not certain (a flag tputrain does not know as global, --help first) or
// there is none, and then the whole tree is built.
std::string_view CommandWord(int argc, const char* const* argv);

}  // namespace tputrain::cli
