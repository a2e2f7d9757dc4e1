#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "tputrain/core/redact.h"
#include "tputrain/core/reporter.h"

namespace tputrain::cli {

// On a TTY, one live line per task under way, each rewritten in place (pools created in
// parallel show one line each, as docker pull shows its layers), cut to the terminal's width;
// messages go above them, wrapped at spaces to that width. Otherwise a plain, whole line whenever
// a task's state changes, which is what CI logs want.
class TerminalReporter final : public core::Reporter {
 public:
  // `width`: the terminal's columns (used only when `is_tty`).
  TerminalReporter(std::ostream& err, bool is_tty, std::size_t width, bool quiet, bool verbose,
                   const core::Redactor& redactor)
      : err_(err), is_tty_(is_tty), width_(width > 0 ? width : 80), quiet_(quiet), verbose_(verbose),
        redactor_(redactor) {}

  void Info(std::string_view message) override;
  void Warn(std::string_view message) override;
  void Progress(std::string_view task, std::string_view state) override;
  void Done(std::string_view task, std::string_view outcome) override;
  void Debug(std::string_view message) override;

 private:
  void EraseLive();
  void DrawLive();
  void Line(std::string_view text);

  std::ostream& err_;
  bool is_tty_;
  std::size_t width_;
  bool quiet_;
  bool verbose_;
  const core::Redactor& redactor_;  // a status message may quote what a server echoed
  std::mutex mutex_;
  std::map<std::string, std::string, std::less<>> last_state_;
  std::vector<std::pair<std::string, std::string>> live_;  // task, its line; in the order they started
  std::size_t drawn_ = 0;                                  // live lines on the screen now
};

}  // namespace tputrain::cli
