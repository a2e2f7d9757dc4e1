#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/cli/context.h"

namespace tputrain::cli {

// Prints a command's result on stdout: `json` as JSON or YAML when asked for, otherwise the
// human table that `print_table` writes. The JSON is the stable, documented contract.
void PrintResult(Context& context, const nlohmann::json& json, const std::function<void(std::ostream&)>& print_table);

std::string ToYaml(const nlohmann::json& json);

// For output that has no JSON or YAML form (a server's shell lines, rendered manifests): a usage
// error naming --format and `what` is printed instead, when --format asks for `refused`.
core::Status RefuseFormat(const Context& context, OutputFormat refused, std::string_view what);

// How PrintTable lays a table out: at most `width` columns wide (0: no limit) and, unless
// `wide`, long cells shortened with an ellipsis in the middle; with `wide`, long cells wrap
// within their own column instead, whole. PrintResult sets the context's on the stream it
// prints the table to (TableLayoutFor), as std::setw travels with a stream.
struct TableLayout {
  std::size_t width = 0;
  bool wide = false;
};

// On a terminal, its width (COLUMNS when set, as ls reads it, else the terminal's own size,
// else 80); otherwise no limit (0), so that logs and pipes get whole, stable lines.
std::size_t StdoutWidth(const Context& context);
std::size_t StderrWidth(const Context& context);
TableLayout TableLayoutFor(const Context& context);
void SetTableLayout(std::ostream& out, const TableLayout& layout);
TableLayout TableLayoutOf(std::ostream& out);

// Left-aligned columns separated by two spaces, headers in capitals, as kubectl and gcloud; fitted
// to the stream's TableLayout. The columns `give_way` names (kResourceColumns: their full form is
// a --format away) are shortened first, the others only when that is not enough.
void PrintTable(std::ostream& out, const std::vector<std::string>& headers,
                const std::vector<std::vector<std::string>>& rows, const std::vector<std::string>& give_way = {});
inline const std::vector<std::string> kResourceColumns = {"name", "location"};

// `command` as it is printed after `first_line_used` columns of its line: whole when it fits in
// `width` (0: no limit, as in logs and pipes), else broken between shell words with " \\" and a
// newline, each further line indented, so that pasted into a shell it runs the same command. A
// word longer than a line stays whole.
std::string FitCommand(std::string_view command, std::size_t first_line_used, std::size_t width);

// One message for a person on stderr (a job's last status, where a tunnel forwards): on a
// terminal wrapped at spaces to its width, piped whole; a newline ends it.
void SayOnStderr(Context& context, std::string_view text);

// A list's table; a list with nothing in it prints no table and says `none` on stderr instead
// ("No clusters in us-central1."), as kubectl says "No resources found": stdout stays empty.
void PrintListTable(Context& context, std::ostream& out, const std::vector<std::string>& headers,
                    const std::vector<std::vector<std::string>>& rows, std::string_view none,
                    const std::vector<std::string>& give_way = {});

// The columns `text` takes on a terminal: its UTF-8 code points.
std::size_t DisplayWidth(std::string_view text);

// The width of the terminal on `fd` (TIOCGWINSZ), or 0 when it is not one or does not say.
int TerminalColumns(int fd);

}  // namespace tputrain::cli
