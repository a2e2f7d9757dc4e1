#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

// Shell completion from the command tree itself, so it never drifts from the flags: the shell
// scripts only call `tputrain __complete CURRENT WORDS...` and show what it prints.
namespace tputrain::cli {

// What the shell should offer besides the candidates.
enum class CompleteFiles { kNone, kFiles, kDirectories };

struct Completion {
  std::vector<std::string> candidates;
  CompleteFiles files = CompleteFiles::kNone;
};

// Values that only the program knows (TPU types from the catalog, model presets, template names),
// by the option's long name or a positional's name. Unknown names offer nothing.
using DynamicValues = std::function<std::vector<std::string>(const std::string& option_name)>;

// `words` are the command line's words after the program name and before the one being typed,
// `current`. Subcommands, flags (the command's and every ancestor's, as global flags are
// accepted after the command name), a flag's enum values ("{table,json,yaml}" in its type),
// FILE/DIR types, and `dynamic` values, each filtered by the prefix `current`.
Completion Complete(const CLI::App& root, const std::vector<std::string>& words, const std::string& current,
                    const DynamicValues& dynamic);

// The scripts `tputrain completion bash|zsh|fish` prints; each calls `__complete` at TAB.
std::string CompletionScript(const std::string& shell);

// __complete's output: one candidate per line, then ":files", ":dirs" or ":none".
std::string FormatCompletion(const Completion& completion);

}  // namespace tputrain::cli
