#include "output/stack_progress.h"

#include "tputrain/core/text.h"

namespace tputrain::cli {
namespace {

std::string Elapsed(std::chrono::steady_clock::duration elapsed) {
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(elapsed).count();
  if (seconds < 60) return std::to_string(seconds) + "s";
  return std::to_string(seconds / 60) + "m" + std::to_string(seconds % 60) + "s";
}

std::string FirstLine(std::string_view text) { return std::string(text.substr(0, text.find('\n'))); }

}  // namespace

StackProgress::StackProgress(std::ostream& err, bool is_tty, bool quiet, const core::Redactor& redactor)
    : err_(err), is_tty_(is_tty), quiet_(quiet), redactor_(redactor) {
  if (!is_tty_ || quiet_) return;
  ticker_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      tick_.wait_for(lock, std::chrono::seconds(1));
      if (!stopping_ && !running_.empty()) Redraw();
    }
  });
}

StackProgress::~StackProgress() { Finish(); }

void StackProgress::Finish() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
    Clear();
    running_.clear();
  }
  tick_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

void StackProgress::Clear() {
  if (shown_ == 0) return;
  err_ << "\033[" << shown_ << "A\r\033[J";
  shown_ = 0;
}

void StackProgress::Redraw() {
  Clear();
  const auto now = std::chrono::steady_clock::now();
  for (const auto& [id, step] : running_) {
    std::string text = "  " + id + "  " + Elapsed(now - step.since) + (step.detail.empty() ? "" : "  " + step.detail);
    err_ << "\r\033[K" << core::PrintableText(redactor_(text)) << "\n";
    ++shown_;
  }
  err_.flush();
}

void StackProgress::Line(const std::string& text) {
  if (is_tty_) Clear();
  err_ << core::PrintableText(redactor_(text)) << "\n";
  if (is_tty_) Redraw();
  err_.flush();
}

void StackProgress::Changed(const workflow::StepResult& step) {
  if (quiet_) return;
  std::lock_guard lock(mutex_);
  if (stopping_) return;
  const std::string state(workflow::StepStateName(step.state));
  switch (step.state) {
    case workflow::StepState::kWaiting:
      if (!is_tty_) Line(step.id + ": waiting" + (step.detail.empty() ? "" : " (" + step.detail.substr(6) + ")"));
      return;
    case workflow::StepState::kRunning:
      running_[step.id] = Running{std::chrono::steady_clock::now(), ""};
      if (is_tty_) {
        Redraw();
      } else {
        Line(step.id + ": running");
      }
      return;
    default:
      running_.erase(step.id);
      Line(step.id + ": " + state + " " + Elapsed(step.elapsed) +
           (step.detail.empty() ? "" : " (" + FirstLine(step.detail) + ")"));
  }
}

void StackProgress::Progress(std::string_view id, std::string_view detail) {
  if (quiet_ || !is_tty_) return;  // piped: a line per change of state only
  std::lock_guard lock(mutex_);
  auto it = running_.find(std::string(id));
  if (stopping_ || it == running_.end()) return;
  it->second.detail = FirstLine(detail);
  Redraw();
}

}  // namespace tputrain::cli
