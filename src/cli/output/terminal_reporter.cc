#include "terminal_reporter.h"

#include <algorithm>

#include "tputrain/core/text.h"
#include "tputrain/core/wrap.h"

namespace tputrain::cli {
namespace {

// A live line longer than the terminal would wrap, and the next redraw would then climb one line
// short: it is cut to fit, its end marked.
std::string FitLine(const std::string& text, std::size_t width) {
  if (core::DisplayColumns(text) <= width) return text;
  std::string cut;
  std::size_t columns = 0;
  for (char c : text) {
    const bool starts_character = (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    if (starts_character && ++columns > width - 1) break;
    cut += c;
  }
  return cut + "…";
}

}  // namespace

// The cursor rests at the end of the last live line: back to the first one, and clear below.
void TerminalReporter::EraseLive() {
  if (drawn_ == 0) return;
  err_ << '\r';
  if (drawn_ > 1)
    err_ << "\033[" << drawn_ - 1 << "A\033[J";
  else
    err_ << "\033[K";
  drawn_ = 0;
}

void TerminalReporter::DrawLive() {
  for (std::size_t i = 0; i < live_.size(); ++i) {
    err_ << (i ? "\n" : "") << FitLine(live_[i].second, width_);
  }
  drawn_ = live_.size();
  err_.flush();
}

void TerminalReporter::Line(std::string_view text) {
  // A server's text (an error's message, a build's log) may hold escape sequences: shown, not obeyed.
  const std::string printable = core::PrintableText(redactor_(text), core::Newlines::kKeep);
  if (!is_tty_) {
    err_ << printable << "\n";
    err_.flush();
    return;
  }
  EraseLive();
  err_ << core::WrapToWidth(printable, width_) << "\n";
  DrawLive();
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
  if (!is_tty_) {
    Line(text);
    return;
  }
  const std::string printable = core::PrintableText(redactor_(text));
  auto live = std::find_if(live_.begin(), live_.end(), [&](const auto& each) { return each.first == task; });
  if (live == live_.end()) {
    live_.emplace_back(std::string(task), printable);
  } else {
    live->second = printable;
  }
  EraseLive();
  DrawLive();
}

// Without a terminal, a task's last state is already a line of its own: an outcome in the same
// words (a build's SUCCESS, its last state too) is not said again. On a terminal the task's live
// line gives way to the outcome's, kept above the tasks still under way.
void TerminalReporter::Done(std::string_view task, std::string_view outcome) {
  if (quiet_) return;
  std::lock_guard lock(mutex_);
  auto last = last_state_.find(task);
  const bool said = !is_tty_ && last != last_state_.end() && last->second == outcome;
  if (last != last_state_.end()) last_state_.erase(last);
  if (said) return;
  if (is_tty_) {
    EraseLive();
    std::erase_if(live_, [&](const auto& each) { return each.first == task; });
  }
  Line(std::string(task) + ": " + std::string(outcome));
}

}  // namespace tputrain::cli
