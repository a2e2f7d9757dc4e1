#include "terminal_reporter.h"

#include "tputrain/core/text.h"

namespace tputrain::cli {

void TerminalReporter::ClearLiveLine() {
  if (live_line_shown_) {
    err_ << "\r\033[K";
    live_line_shown_ = false;
  }
}

void TerminalReporter::Line(std::string_view text) {
  ClearLiveLine();
  // A server's text (an error's message, a build's log) may hold escape sequences: shown, not obeyed.
  err_ << core::PrintableText(redactor_(text), core::Newlines::kKeep) << "\n";
  err_.flush();
}

void TerminalReporter::Info(std::string_view message) {
  if (quiet_) return;
  std::lock_guard lock(mutex_);
  Line(message);
}

// Warnings survive --quiet: they are about the result, not about progress.
void TerminalReporter::Warn(std::string_view message) {
  std::lock_guard lock(mutex_);
  Line(std::string("WARNING: ") + std::string(message));
}

void TerminalReporter::Debug(std::string_view message) {
  if (!verbose_) return;
  std::lock_guard lock(mutex_);
  Line(message);
}

void TerminalReporter::Progress(std::string_view task, std::string_view state) {
  if (quiet_) return;
  std::lock_guard lock(mutex_);
  auto it = last_state_.find(task);
  if (it != last_state_.end() && it->second == state) return;
  last_state_[std::string(task)] = std::string(state);
  std::string text = std::string(task) + ": " + std::string(state);
  if (is_tty_) {
    ClearLiveLine();
    err_ << core::PrintableText(redactor_(text));
    err_.flush();
    live_line_shown_ = true;
  } else {
    Line(text);
  }
}

// Without a terminal, a task's last state is already a line of its own: an outcome in the same
// words (a build's SUCCESS, its last state too) is not said again. On a terminal the live line
// gives way to the outcome's.
void TerminalReporter::Done(std::string_view task, std::string_view outcome) {
  if (quiet_) return;
  std::lock_guard lock(mutex_);
  auto last = last_state_.find(task);
  const bool said = !is_tty_ && last != last_state_.end() && last->second == outcome;
  if (last != last_state_.end()) last_state_.erase(last);
  if (said) return;
  Line(std::string(task) + ": " + std::string(outcome));
}

}  // namespace tputrain::cli
