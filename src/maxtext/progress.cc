#include "tputrain/maxtext/progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace tputrain::maxtext {
namespace {

// A plain line at most this often when the run's length is unknown.
constexpr std::chrono::seconds kPlainInterval{30};
// The live bar is redrawn at most this often: step lines can arrive in bursts of hundreds.
constexpr std::chrono::milliseconds kLiveInterval{100};

std::string Duration(double seconds) {
  auto total = static_cast<int64_t>(std::llround(std::max(seconds, 0.0)));
  if (total >= 3600) return fmt::format("{}:{:02}:{:02}", total / 3600, total / 60 % 60, total % 60);
  return fmt::format("{}:{:02}", total / 60, total % 60);
}

std::string Details(const ProgressState& state, std::string_view separator) {
  std::string out;
  if (state.eta_seconds) out += fmt::format("{}ETA {}", separator, Duration(*state.eta_seconds));
  if (state.tokens_per_second_per_device) {
    out += fmt::format("{}{:.0f} tokens/s/device", separator, *state.tokens_per_second_per_device);
  }
  if (state.loss) out += fmt::format("{}loss {:.3f}", separator, *state.loss);
  if (state.rampup) out += fmt::format("{}batch rampup", separator);
  return out;
}

}  // namespace

bool ProgressModel::Feed(std::string_view piece) {
  size_t before = log_.arrival_order().size();
  log_.Feed(piece);
  Account(before);
  return log_.arrival_order().size() > before;
}

void ProgressModel::Account(size_t steps_before) {
  const auto& order = log_.arrival_order();
  for (size_t i = steps_before; i < order.size(); ++i) {
    const StepMetrics& metrics = log_.steps().at(order[i]).metrics;
    if (metrics.rampup) continue;
    if (++counted_ > 2) {
      timed_seconds_ += metrics.seconds;
      ++timed_steps_;
    }
  }
}

ProgressState ProgressModel::State() const {
  ProgressState state;
  state.steps_total = steps_total_;
  const StepRecord* last = log_.last();
  if (last == nullptr) return state;
  state.steps_done = last->metrics.step + 1;
  state.loss = last->metrics.loss;
  state.tokens_per_second_per_device = last->metrics.tokens_per_device;
  state.rampup = last->metrics.rampup;
  if (steps_total_ && timed_steps_ > 0) {
    double remaining = static_cast<double>(std::max<int64_t>(*steps_total_ - state.steps_done, 0));
    state.eta_seconds = remaining * timed_seconds_ / static_cast<double>(timed_steps_);
  }
  return state;
}

std::string RenderBar(const ProgressState& state, int width) {
  std::string bar;
  if (state.steps_total && *state.steps_total > 0) {
    double fraction =
        std::clamp(static_cast<double>(state.steps_done) / static_cast<double>(*state.steps_total), 0.0, 1.0);
    int filled = static_cast<int>(fraction * width);
    bar = "[" + std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(width - filled), '-') +
          "] ";
    bar += fmt::format("{}/{} steps", state.steps_done, *state.steps_total);
  } else {
    bar = fmt::format("{} steps", state.steps_done);
  }
  return bar + Details(state, "  ");
}

std::string RenderLine(const ProgressState& state) {
  std::string line = fmt::format("step {}", state.steps_done);
  if (state.steps_total && *state.steps_total > 0) {
    line += fmt::format("/{} ({}%)", *state.steps_total, state.steps_done * 100 / *state.steps_total);
  }
  return line + Details(state, ", ");
}

bool ProgressPrinter::Due(const ProgressState& state, core::Clock::TimePoint now) const {
  if (state.steps_done == last_shown_steps_) return false;
  if (live_) return !last_shown_at_ || now - *last_shown_at_ >= kLiveInterval;
  if (state.steps_total && *state.steps_total > 0) {
    if (state.steps_done >= *state.steps_total) return true;
    int64_t tenth = std::max<int64_t>(*state.steps_total / 10, 1);
    return last_shown_steps_ < 0 || state.steps_done / tenth > last_shown_steps_ / tenth;
  }
  return !last_shown_at_ || now - *last_shown_at_ >= kPlainInterval;
}

void ProgressPrinter::Update(const ProgressState& state) {
  if (state.steps_done == 0) return;
  auto now = clock_.Now();
  if (!Due(state, now)) {
    if (state.steps_done != last_shown_steps_) pending_ = state;
    return;
  }
  pending_.reset();
  last_shown_at_ = now;
  last_shown_steps_ = state.steps_done;
  reporter_.Progress("training", live_ ? RenderBar(state) : RenderLine(state));
}

void ProgressPrinter::Flush() {
  if (!pending_) return;
  ProgressState state = *pending_;
  pending_.reset();
  last_shown_steps_ = state.steps_done;
  last_shown_at_ = clock_.Now();
  reporter_.Progress("training", live_ ? RenderBar(state) : RenderLine(state));
}

}  // namespace tputrain::maxtext
