// `tputrain up`'s progress on stderr: on a terminal one live line per running step, redrawn in
// place under the kept lines of the steps that ended, gone at the end; piped, one line per
// change of a step's state and no escape sequences.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "output/stack_progress.h"

namespace tputrain::cli {
namespace {

using workflow::StepResult;
using workflow::StepState;

// The lines a terminal shows after `text`: enough of a VT100 for what StackProgress writes
// (cursor up, carriage return, erase line, erase to the end of the screen, newline).
std::vector<std::string> Screen(const std::string& text) {
  std::vector<std::string> lines(1);
  std::size_t row = 0, column = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\033' && i + 1 < text.size() && text[i + 1] == '[') {
      std::size_t end = i + 2;
      while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
      const int count = end > i + 2 ? std::stoi(text.substr(i + 2, end - i - 2)) : 1;
      switch (text[end]) {
        case 'A':
          row = row >= static_cast<std::size_t>(count) ? row - count : 0;
          break;
        case 'K':
          lines[row].resize(column);
          break;
        case 'J':
          lines[row].resize(column);
          lines.resize(row + 1);
          break;
        default:
          FAIL("an escape sequence the screen does not know: " << text.substr(i, end - i + 1));
      }
      i = end;
    } else if (c == '\r') {
      column = 0;
    } else if (c == '\n') {
      ++row;
      column = 0;
      if (lines.size() <= row) lines.emplace_back();
    } else {
      if (lines[row].size() <= column) lines[row].resize(column + 1);
      lines[row][column++] = c;
    }
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

StepResult Step(const std::string& id, StepState state, const std::string& detail = "") {
  return StepResult{id, state, detail, std::chrono::milliseconds(0), {}, std::nullopt};
}

TEST_CASE("up on a terminal: a live line per running step under the kept ones, none left at the end", "[unit]") {
  std::ostringstream err;
  core::Redactor redactor;
  StackProgress progress(err, /*is_tty=*/true, /*quiet=*/false, redactor);
  progress.Changed(Step("cluster", StepState::kWaiting, "waits for services"));
  progress.Changed(Step("services", StepState::kRunning));
  progress.Changed(Step("services", StepState::kAdopted, "already enabled"));
  progress.Changed(Step("cluster", StepState::kRunning));
  progress.Changed(Step("bucket", StepState::kRunning));
  progress.Progress("cluster", "CREATE_CLUSTER RUNNING");
  auto screen = Screen(err.str());
  REQUIRE(screen.size() == 3);
  CHECK(screen[0] == "services: adopted 0s (already enabled)");
  // A live line: the step, its time running (0s, or more on a slow machine) and its last word.
  CHECK((screen[1].starts_with("  bucket  ") && screen[1].ends_with("s")));
  CHECK((screen[2].starts_with("  cluster  ") && screen[2].ends_with("s  CREATE_CLUSTER RUNNING")));

  progress.Changed(Step("bucket", StepState::kDone, "created"));
  screen = Screen(err.str());
  REQUIRE(screen.size() == 3);
  CHECK(screen[1] == "bucket: done 0s (created)");
  CHECK((screen[2].starts_with("  cluster  ") && screen[2].ends_with("s  CREATE_CLUSTER RUNNING")));

  progress.Changed(Step("cluster", StepState::kDone, "created"));
  progress.Finish();
  screen = Screen(err.str());
  CHECK(screen == std::vector<std::string>{"services: adopted 0s (already enabled)", "bucket: done 0s (created)",
                                           "cluster: done 0s (created)"});
}

TEST_CASE("up piped: a line per change of state, no live lines and no escapes", "[unit]") {
  std::ostringstream err;
  core::Redactor redactor;
  StackProgress progress(err, /*is_tty=*/false, /*quiet=*/false, redactor);
  progress.Changed(Step("cluster", StepState::kWaiting, "waits for services"));
  progress.Changed(Step("cluster", StepState::kRunning));
  progress.Progress("cluster", "CREATE_CLUSTER RUNNING");
  progress.Changed(Step("cluster", StepState::kFailed, "STOCKOUT in us-east5-b\nsecond line"));
  progress.Finish();
  CHECK(err.str() ==
        "cluster: waiting (for services)\ncluster: running\ncluster: failed 0s (STOCKOUT in us-east5-b)\n");
}

}  // namespace
}  // namespace tputrain::cli
