#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tputrain/maxtext/step_line.h"

namespace tputrain::maxtext {

// One training step as the log reports it. Every host of a multi-host slice prints the same step
// (with RAY_DEDUP_LOGS=0 Ray relays them all): the first line is kept, the others counted.
struct StepRecord {
  StepMetrics metrics;
  int lines = 0;  // lines seen for this step, Ray's `[repeated Nx]` counted as N
};

// Reads a MaxText run's output as it streams in, in pieces of any size: a line split across
// two pieces is parsed once it is whole.
class TrainingLog {
 public:
  // Returns how many steps were seen for the first time in this piece.
  int Feed(std::string_view piece);
  // The log has ended: a last line without '\n' is parsed too.
  int Finish();

  const std::map<int64_t, StepRecord>& steps() const { return steps_; }
  // Step numbers in the order their first line arrived.
  const std::vector<int64_t>& arrival_order() const { return arrival_; }
  const StepRecord* last() const { return steps_.empty() ? nullptr : &steps_.rbegin()->second; }
  std::optional<int64_t> num_devices() const { return num_devices_; }         // `Num_devices: N`
  std::optional<double> parameters() const { return parameters_; }            // `number parameters:`
  std::optional<double> printed_step_tflops() const { return step_tflops_; }  // `Total TFLOPs:`, %.2f
  bool nan_abort() const { return nan_abort_; }
  int profiler_boundaries() const { return profiler_boundaries_; }
  int64_t lines() const { return lines_; }

 private:
  int Line(std::string_view line);

  std::string partial_;
  std::map<int64_t, StepRecord> steps_;
  std::vector<int64_t> arrival_;
  std::optional<int64_t> num_devices_;
  std::optional<double> parameters_;
  std::optional<double> step_tflops_;
  bool nan_abort_ = false;
  int profiler_boundaries_ = 0;
  int64_t lines_ = 0;
};

}  // namespace tputrain::maxtext
