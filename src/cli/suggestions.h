#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace tputrain::cli {

// The one line for a word CLI11 could not place, with the nearest valid ones, in place of CLI11's
// "The following arguments were not expected: v6e-16 --tpu-typ" and "A subcommand is required":
//   "--tpu-typ: no such flag for 'tputrain cluster create'; did you mean --tpu-type?"
//   "creat: no such command of 'tputrain cluster'; did you mean create?"
//   "'tputrain cluster' needs a command: create, delete, describe, list or get-credentials"
// `root` is the app that failed to parse `error`, as the parse left it (the commands it got as
// far as). Empty when the error is of another kind (a bad value): ParseErrorLine says those.
std::optional<std::string> UnplacedWordLine(const CLI::App& root, const CLI::ParseError& error);

}  // namespace tputrain::cli
