#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace tputrain::cli {

// CLI11's message for a flag it refused, as one line that names the flag and says what was
// expected, in tputrain's words ("--num-slices: expected 1 to 64, got 0") instead of CLI11's
// ("Value 0 not in range 1 to 64", "Could not convert: --num-nodes = abc", "names is required").
// Messages it does not recognise pass through unchanged.
std::string ParseErrorLine(const CLI::ParseError& error);

}  // namespace tputrain::cli
