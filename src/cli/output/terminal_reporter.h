#pragma once

#include <map>
#include <mutex>
#include <ostream>
#include <string>

#include "tputrain/core/redact.h"
#include "tputrain/core/reporter.h"

namespace tputrain::cli {

// On a TTY, one live line per task, rewritten in place; otherwise a plain line whenever a
// task's state changes, which is what CI logs want.
class TerminalReporter final : public core::Reporter {
 public:
  TerminalReporter(std::ostream& err, bool is_tty, bool quiet, bool verbose, const core::Redactor& redactor)
      : err_(err), is_tty_(is_tty), quiet_(quiet), verbose_(verbose), redactor_(redactor) {}

  void Info(std::string_view message) override;
  void Warn(std::string_view message) override;
  void Progress(std::string_view task, std::string_view state) override;
  void Done(std::string_view task, std::string_view outcome) override;
  void Debug(std::string_view message) override;

 private:
  void ClearLiveLine();
  void Line(std::string_view text);

  std::ostream& err_;
  bool is_tty_;
  bool quiet_;
  bool verbose_;
  const core::Redactor& redactor_;  // a status message may quote what a server echoed
  std::mutex mutex_;
  std::map<std::string, std::string, std::less<>> last_state_;
  bool live_line_shown_ = false;
};

}  // namespace tputrain::cli
