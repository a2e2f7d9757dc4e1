#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace tputrain::cli {

// CLI11's message for a flag it refused, as one line that names the flag and says what was
// expected, in tputrain's words ("--num-slices: expected 1 to 64, got 0") instead of CLI11's
// ("Value 0 not in range 1 to 64", "Could not convert: --num-nodes = abc", "names is required").
// Messages it does not recognise pass through unchanged; control characters are escaped.
std::string ParseErrorLine(const CLI::ParseError& error);

// Gives every option that takes a value, in `app` and all its subcommands, checks that refuse
// text that is not UTF-8 ("--prompt: expected UTF-8 text, got 'caf\xe9'": every value may end up
// in a JSON body, which holds only UTF-8) and an empty value ("--tpu-type: expected a value,
// got ''": `--tpu-type ""` from an unset shell variable must not quietly mean "no TPU pool").
// Positionals named in `may_be_empty` (an entrypoint's arguments, where "" is a real argument)
// keep empty values. Call after every command's flags are added.
void RefuseBadValues(CLI::App& app, const std::vector<std::string>& may_be_empty);

// A check for a DIR option that must name an existing directory (--template-dir, a state
// directory that is only read): "--template-dir: expected an existing directory, got 'tmpl'".
// A typo must not read as "nothing there".
const CLI::Validator& ExistingDirectory();

}  // namespace tputrain::cli
