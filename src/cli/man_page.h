#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace tputrain::cli {

// tputrain(1) in roff, generated from the command tree (descriptions, flags, examples, exit
// codes), so the man page says what --help says. The build writes it with `tputrain __man`.
std::string ManPage(const CLI::App& root, const std::string& version);

}  // namespace tputrain::cli
