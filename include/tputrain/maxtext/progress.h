#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tputrain/core/clock.h"
#include "tputrain/core/reporter.h"
#include "tputrain/maxtext/training_log.h"

namespace tputrain::maxtext {

struct ProgressState {
  int64_t steps_done = 0;  // last logged step + 1
  std::optional<int64_t> steps_total;
  std::optional<double> eta_seconds;                   // remaining steps × recent mean step time
  std::optional<double> tokens_per_second_per_device;  // the last step's
  std::optional<double> loss;                          // the last step's
  bool rampup = false;
};

// A run's progress as its log streams in. The ETA averages the steps after the first two
// logged (start-up and compile), so it is known from the third step on.
class ProgressModel {
 public:
  explicit ProgressModel(std::optional<int64_t> steps_total) : steps_total_(steps_total) {}

  // Returns true when the piece completed at least one new step.
  bool Feed(std::string_view piece);
  void Finish() { log_.Finish(); }

  ProgressState State() const;
  const TrainingLog& log() const { return log_; }

 private:
  void Account(size_t steps_before);

  std::optional<int64_t> steps_total_;
  TrainingLog log_;
  int64_t counted_ = 0;       // steps folded into the running mean so far (by arrival)
  double timed_seconds_ = 0;  // sum over steps after the first two
  int64_t timed_steps_ = 0;
};

// `[########------------] 5/8 steps  ETA 0:03  6012 tokens/s/device  loss 5.410`
std::string RenderBar(const ProgressState& state, int width = 24);
// `step 5/8 (62%), ETA 0:03, 6012 tokens/s/device, loss 5.410`
std::string RenderLine(const ProgressState& state);

// Shows progress through a Reporter: on a terminal, a live bar rewritten at most ~10 times a
// second; otherwise a plain line for each tenth of the run (or every 30 s when the step count
// is unknown) and for the last step, which suits CI logs.
class ProgressPrinter {
 public:
  ProgressPrinter(core::Reporter& reporter, core::Clock& clock, bool live)
      : reporter_(reporter), clock_(clock), live_(live) {}

  void Update(const ProgressState& state);
  // Prints the final state if the last update was held back.
  void Flush();

 private:
  bool Due(const ProgressState& state, core::Clock::TimePoint now) const;

  core::Reporter& reporter_;
  core::Clock& clock_;
  bool live_;
  std::optional<core::Clock::TimePoint> last_shown_at_;
  int64_t last_shown_steps_ = -1;
  std::optional<ProgressState> pending_;
};

}  // namespace tputrain::maxtext
