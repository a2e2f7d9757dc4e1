#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tputrain/maxtext/training_log.h"

// The end-of-run summary MaxText does not print: step count, mean step time, throughput and
// MFU, from the step lines plus what tputrain knows about the run.
namespace tputrain::maxtext {

// What the log alone does not say. Unknown values are inferred from the log where it can
// (tokens per step from Tokens/s × seconds, devices from `Num_devices`).
struct RunFacts {
  std::optional<double> tokens_per_device_step;  // catalog::TrainingTokensPerDevice
  std::optional<double> tflops_per_device_step;  // catalog::TrainingTflopsPerDevice
  int devices_per_slice = 0;                     // 0: from the log, else 1
  int slices = 1;
  std::optional<double> peak_tflops_per_device;  // the chip's bf16 peak; none on CPU
  std::optional<int64_t> steps_requested;
};

struct TrainingSummary {
  int64_t steps_logged = 0;  // distinct steps with a timing line
  std::optional<int64_t> last_step;
  std::optional<int64_t> steps_requested;
  int64_t steps_timed = 0;  // the steps the mean is taken over
  std::optional<double> mean_step_seconds;
  std::optional<double> tokens_per_device_step;
  std::optional<double> tflops_per_device_step;
  std::optional<double> tokens_per_second_per_device;
  std::optional<double> tokens_per_second_per_slice;
  std::optional<double> tokens_per_second;  // all slices
  std::optional<double> tflops_per_second_per_device;
  std::optional<double> mfu;  // fraction of the chip's peak
  std::optional<double> final_loss;
  int devices_per_slice = 1;
  int slices = 1;
  bool nan_loss = false;
};

// A step's duration without the rounding of its `seconds: %.3f` field: tokens ÷ Tokens/s
// (printed to 3 decimals of a much larger number), when both are known.
double ExactStepSeconds(const StepMetrics& metrics, std::optional<double> tokens_per_device_step);

// Mean step time over steps ≥ 2, when there are any: MaxText reports metrics one step late, so
// step 0 is short and step 1 absorbs the wait (and, on a fresh run, the compile). Rampup steps
// run a smaller batch and are left out too. With only steps 0 and 1 logged, they are used.
TrainingSummary Summarize(const TrainingLog& log, const RunFacts& facts);

nlohmann::json SummaryToJson(const TrainingSummary& summary);
// A few aligned "name: value" lines for people.
std::string FormatSummary(const TrainingSummary& summary);

}  // namespace tputrain::maxtext
