#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// What MaxText prints about training progress, read from one line of its output. MaxText has no
// machine-readable progress channel: its step lines (common/metric_logger.py) are the only
// record of step times and throughput, and their shape changed across releases.
namespace tputrain::maxtext {

// The Ray decorations around a worker's line: `(RayTrainWorker pid=N, ip=A.B.C.D) ` before it
// and ` [repeated Nx across cluster]` after it when Ray's log dedup merged identical lines.
struct LineOrigin {
  std::string actor;  // "RayTrainWorker", "TrainController"; empty for the driver's own lines
  int64_t pid = 0;
  std::string ip;    // empty when the actor runs on the driver's node
  int repeated = 1;  // how many workers printed this line
};

// `completed step: N, seconds: S, TFLOP/s/device: X, Tokens/s/device: Y, total_weights: W,
// loss: L, ...`. Only the step number and the seconds are always there: batch-size rampup steps
// have no TFLOP/Tokens, releases before 2025-09 have no Tokens/s, and the fields after `loss`
// come and go with the model (MoE, MTP, DPO) and the release.
struct StepMetrics {
  int64_t step = 0;
  double seconds = 0;
  bool rampup = false;                                // `[Rampup Batch Size Phase], ` before it
  std::optional<int> live_slices;                     // elastic training
  std::optional<double> tflops_per_device;            // TFLOP/s/device
  std::optional<double> tokens_per_device;            // Tokens/s/device
  std::optional<int64_t> total_weights;               // tokens in the global batch
  std::optional<double> loss;                         // NaN when MaxText printed "nan"
  std::vector<std::pair<std::string, double>> extra;  // lm_loss, perplexity, moe_lb_loss, ...
};

enum class LineKind {
  kOther,
  kStep,              // `completed step: ...`
  kProfilerBoundary,  // `completed profiler activation/deactivation step: N`: no timings
  kParameters,        // `number parameters: 8.030 billion`
  kStepTflops,        // ` Total TFLOPs: 0.00 ` of the `Per train step:` block
  kNumDevices,        // `Num_devices: 16, shape ...`
  kNanAbort,          // `Aborting training due to NaN loss.`
};

struct ParsedLine {
  LineKind kind = LineKind::kOther;
  LineOrigin origin;
  std::optional<StepMetrics> metrics;  // kStep
  int64_t boundary_step = 0;           // kProfilerBoundary
  double value = 0;                    // kParameters (a count, not billions), kStepTflops, kNumDevices
};

// Removes ANSI SGR/CSI sequences (Ray colours actor prefixes and the dedup suffix on a TTY-less
// head too) and a trailing '\r'.
std::string StripAnsi(std::string_view line);

// Parses one line (without its '\n') as printed by MaxText, bare (`print`), through absl
// (`I1122 12:49:18.945887 1405 metric_logger.py:265] `), or relayed by a Ray worker.
ParsedLine ParseLine(std::string_view line);

}  // namespace tputrain::maxtext
