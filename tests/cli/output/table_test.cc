// Tables on a terminal fit its width (the widest cells give way, shortened in the middle, or with
// --format wide wrapped in their column); without one, lines stay whole and the same every run.
#include <catch2/catch.hpp>

#include <pty.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <sstream>

#include "output/output.h"

namespace tputrain::cli {
namespace {

const std::vector<std::string> kHeaders = {"kind", "name", "state", "operation"};
const std::vector<std::vector<std::string>> kRows = {
    {"nodepool", "projects/ml-platform-training-prod/locations/us-central1/clusters/ray-tpu-v6e/nodePools/tpu-v6e-16",
     "creating",
     "projects/ml-platform-training-prod/locations/us-central1/operations/operation-1763630102000-5f3a9c1e"},
    {"bucket", "ml-platform-training-prod-checkpoints", "created", ""},
};

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string Render(const TableLayout& layout, const std::vector<std::string>& headers = kHeaders,
                   const std::vector<std::vector<std::string>>& rows = kRows) {
  std::ostringstream out;
  SetTableLayout(out, layout);
  PrintTable(out, headers, rows);
  return out.str();
}

TEST_CASE("a cell a server filled with a newline or an escape sequence is shown on its line, not obeyed") {
  const std::string text = Render({}, {"name", "state"}, {{"vm\n1", "\x1b[2J\x1b]0;title\x07ready"}});
  CHECK(Lines(text).size() == 2);
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.find('\x07') == std::string::npos);
  CHECK(text.find("vm\\n1") != std::string::npos);
  CHECK(text.find("\\x1b[2J\\x1b]0;title\\x07ready") != std::string::npos);
}

TEST_CASE("without a terminal a table's lines are whole, as before") {
  const std::string text = Render({});
  const auto lines = Lines(text);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].rfind("KIND      NAME", 0) == 0);
  CHECK(lines[1].find(kRows[0][1]) != std::string::npos);
  CHECK(lines[1].find(kRows[0][3]) != std::string::npos);
  CHECK(text.find("\u2026") == std::string::npos);
  CHECK(lines[2] ==
        "bucket    ml-platform-training-prod-checkpoints" +
            std::string(kRows[0][1].size() - std::string("ml-platform-training-prod-checkpoints").size() + 2, ' ') +
            "created");
}

TEST_CASE("at 80 columns long cells are shortened in the middle and short columns stay whole") {
  const auto lines = Lines(Render({80, false}));
  REQUIRE(lines.size() == 3);
  for (const auto& line : lines) CHECK(DisplayWidth(line) <= 80);
  CHECK(lines[0].find("OPERATION") != std::string::npos);
  // The columns still line up, on the screen: STATE starts where "creating" and "created" start.
  auto column_of = [](const std::string& line, const std::string& text) {
    const auto at = line.find(text);
    return at == std::string::npos ? std::string::npos : DisplayWidth(line.substr(0, at));
  };
  CHECK(column_of(lines[1], "  creating  ") + 2 == column_of(lines[0], "STATE"));
  CHECK(column_of(lines[2], "  created") + 2 == column_of(lines[0], "STATE"));
  // A shortened name keeps its start and its end.
  CHECK(lines[1].find("projects/") != std::string::npos);
  CHECK(lines[1].find("\u2026") != std::string::npos);
  CHECK(lines[1].find("5f3a9c1e") != std::string::npos);
}

TEST_CASE("--format wide at 80 columns wraps long cells within their column, whole") {
  const auto lines = Lines(Render({80, true}));
  REQUIRE(lines.size() > 3);
  std::string name;
  std::string operation;
  const auto name_at = lines[0].find("NAME");
  const auto state_at = lines[0].find("STATE");
  const auto operation_at = lines[0].find("OPERATION");
  for (std::size_t i = 1; i < lines.size(); ++i) {
    CHECK(DisplayWidth(lines[i]) <= 80);
    CHECK(lines[i].find("\u2026") == std::string::npos);
    if (lines[i].rfind("bucket", 0) == 0) break;
    std::string cell = lines[i].substr(name_at, state_at - name_at);
    name += cell.substr(0, cell.find_last_not_of(' ') + 1);
    if (lines[i].size() > operation_at) operation += lines[i].substr(operation_at);
  }
  CHECK(name == kRows[0][1]);
  CHECK(operation == kRows[0][3]);
}

TEST_CASE("a cell's width is its code points: a multiplication sign takes one column") {
  const auto lines = Lines(Render({}, {"field", "value"},
                                  {{"node pool", "4 nodes of ct6e-standard-4t \u00d7 4 chips"}, {"slice", "v6e-16"}}));
  REQUIRE(lines.size() == 3);
  CHECK(lines[1].find("4 nodes") == lines[2].find("v6e-16"));
  CHECK(DisplayWidth("\u00d7\u2026ab") == 4);
}

TEST_CASE("a table that has to give way first loses its empty columns; one that fits keeps them") {
  const std::vector<std::vector<std::string>> settled = {{"nodepool", kRows[0][1], "created", ""},
                                                         {"bucket", kRows[1][1], "created", ""}};
  const auto narrow = Lines(Render({80, false}, kHeaders, settled));
  CHECK(narrow[0].find("OPERATION") == std::string::npos);
  CHECK(narrow[1].find("\u2026") != std::string::npos);
  const auto roomy = Lines(Render({200, false}, kHeaders, settled));
  CHECK(roomy[0].find("OPERATION") != std::string::npos);
  CHECK(Lines(Render({}, kHeaders, settled))[0].find("OPERATION") != std::string::npos);
}

TEST_CASE("a resource table's NAME and LOCATION give way first; the other columns stay whole") {
  const std::vector<std::vector<std::string>> plan = {
      {"nodepool", "ray-tpu-v6e-training-us-central1-prod/tpu-v6e-16-training-slice-pool", "us-central1", "created",
       "goes with its cluster"},
      {"iam-member", "storage.objectUser for ksa training-workloads/ray-ksa-maxtext",
       "bucket ml-platform-training-prod-checkpoints-us-central1", "created", "delete"}};
  const std::vector<std::string> headers = {"kind", "name", "location", "state", "action"};
  const auto lines = Lines(Render({80, false}, headers, plan));  // kResourceColumns: {"name", "location"}
  std::ostringstream out;
  SetTableLayout(out, {80, false});
  PrintTable(out, headers, plan, kResourceColumns);
  const auto fitted = Lines(out.str());
  REQUIRE(fitted.size() == 3);
  for (const auto& line : fitted) CHECK(DisplayWidth(line) <= 80);
  CHECK(fitted[1].find("goes with its cluster") != std::string::npos);
  CHECK(fitted[2].rfind("iam-member  ", 0) == 0);
  CHECK(fitted[1].find("\u2026") != std::string::npos);
  // Without the hint every wide column shares the cut.
  CHECK(lines[1].find("goes with its cluster") == std::string::npos);
}

TEST_CASE("a terminal too narrow for the headers keeps them whole") {
  const auto lines = Lines(Render({20, false}));
  CHECK(lines[0] == "KIND  NAME  STATE  OPERATION");
}

TEST_CASE("the layout comes from the terminal: COLUMNS, else its size, else 80; none without one") {
  std::ostringstream out;
  std::ostringstream err;
  Context context(core::Env(std::map<std::string, std::string>{{"COLUMNS", "100"}}), out, err);
  CHECK(TableLayoutFor(context).width == 0);  // a pipe: COLUMNS does not matter
  context.stdout_is_tty = true;
  CHECK(TableLayoutFor(context).width == 100);
  context.env.Unset("COLUMNS");
  CHECK(TableLayoutFor(context).width == 80);
  context.stdout_columns = 132;
  CHECK(TableLayoutFor(context).width == 132);
  context.env.Set("COLUMNS", "wide");
  CHECK(TableLayoutFor(context).width == 132);
  CHECK_FALSE(TableLayoutFor(context).wide);
  context.global.format = "wide";
  CHECK(TableLayoutFor(context).wide);
  CHECK(context.global.output_format() == OutputFormat::kTable);
}

TEST_CASE("PrintResult lays the table out for the context's terminal, and only the table") {
  std::ostringstream out;
  std::ostringstream err;
  Context context(core::Env(std::map<std::string, std::string>{{"COLUMNS", "80"}}), out, err);
  context.stdout_is_tty = true;
  PrintResult(context, {{"name", kRows[0][1]}}, [](std::ostream& table) { PrintTable(table, kHeaders, kRows); });
  for (const auto& line : Lines(out.str())) CHECK(DisplayWidth(line) <= 80);
  CHECK(TableLayoutOf(out).width == 0);  // as it was before
  std::ostringstream json_out;
  Context json_context(core::Env(std::map<std::string, std::string>{{"COLUMNS", "80"}}), json_out, err);
  json_context.stdout_is_tty = true;
  json_context.global.format = "json";
  PrintResult(json_context, {{"name", kRows[0][1]}}, [](std::ostream&) {});
  CHECK(json_out.str().find(kRows[0][1]) != std::string::npos);
}

TEST_CASE("TerminalColumns reads the terminal's size (TIOCGWINSZ); a pipe has none") {
  int master = -1;
  int slave = -1;
  winsize size{};
  size.ws_col = 123;
  size.ws_row = 40;
  REQUIRE(openpty(&master, &slave, nullptr, nullptr, &size) == 0);
  CHECK(TerminalColumns(slave) == 123);
  close(master);
  close(slave);
  int pipe_fds[2];
  REQUIRE(pipe(pipe_fds) == 0);
  CHECK(TerminalColumns(pipe_fds[1]) == 0);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

}  // namespace
}  // namespace tputrain::cli
