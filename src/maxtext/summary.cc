#include "tputrain/maxtext/summary.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

namespace tputrain::maxtext {
namespace {

// Steps that ran the full batch: rampup steps run a smaller one and print no throughput.
std::vector<const StepMetrics*> FullSteps(const TrainingLog& log) {
  std::vector<const StepMetrics*> steps;
  for (const auto& [number, record] : log.steps()) {
    if (!record.metrics.rampup) steps.push_back(&record.metrics);
  }
  return steps;
}

// Tokens per device per step, recovered from Tokens/s × seconds of the longest step (whose
// 3-decimal seconds are the least rounded, relatively). Tokens per step are whole numbers.
std::optional<double> InferTokensPerStep(const std::vector<const StepMetrics*>& steps) {
  const StepMetrics* best = nullptr;
  for (const auto* step : steps) {
    if (step->tokens_per_device && *step->tokens_per_device > 0 && step->seconds > 0 &&
        (best == nullptr || step->seconds > best->seconds)) {
      best = step;
    }
  }
  if (best == nullptr) return std::nullopt;
  double tokens = std::round(*best->tokens_per_device * best->seconds);
  return tokens > 0 ? std::optional<double>(tokens) : std::nullopt;
}

// TFLOP per device per step, from TFLOP/s × the exact step time of the step whose printed
// TFLOP/s is largest (the least rounded, relatively).
std::optional<double> InferTflopsPerStep(const std::vector<const StepMetrics*>& steps,
                                         std::optional<double> tokens_per_step) {
  const StepMetrics* best = nullptr;
  for (const auto* step : steps) {
    if (step->tflops_per_device && *step->tflops_per_device > 0 &&
        (best == nullptr || *step->tflops_per_device > *best->tflops_per_device)) {
      best = step;
    }
  }
  if (best == nullptr) return std::nullopt;
  return *best->tflops_per_device * ExactStepSeconds(*best, tokens_per_step);
}

std::optional<double> Finite(std::optional<double> value) {
  return value && std::isfinite(*value) ? value : std::nullopt;
}

nlohmann::json Optional(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json Optional(const std::optional<int64_t>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace

double ExactStepSeconds(const StepMetrics& metrics, std::optional<double> tokens_per_device_step) {
  if (tokens_per_device_step && metrics.tokens_per_device && *metrics.tokens_per_device > 0) {
    return *tokens_per_device_step / *metrics.tokens_per_device;
  }
  return metrics.seconds;
}

TrainingSummary Summarize(const TrainingLog& log, const RunFacts& facts) {
  TrainingSummary summary;
  summary.steps_requested = facts.steps_requested;
  summary.slices = std::max(facts.slices, 1);
  summary.steps_logged = static_cast<int64_t>(log.steps().size());
  if (const StepRecord* last = log.last()) {
    summary.last_step = last->metrics.step;
    summary.final_loss = last->metrics.loss;
  }
  summary.nan_loss = log.nan_abort() || (summary.final_loss && std::isnan(*summary.final_loss));
  if (facts.devices_per_slice > 0) {
    summary.devices_per_slice = facts.devices_per_slice;
  } else if (log.num_devices() && *log.num_devices() >= summary.slices) {
    summary.devices_per_slice = static_cast<int>(*log.num_devices() / summary.slices);
  }

  std::vector<const StepMetrics*> steps = FullSteps(log);
  summary.tokens_per_device_step =
      facts.tokens_per_device_step ? facts.tokens_per_device_step : InferTokensPerStep(steps);
  summary.tflops_per_device_step = facts.tflops_per_device_step
                                       ? facts.tflops_per_device_step
                                       : InferTflopsPerStep(steps, summary.tokens_per_device_step);

  size_t skip = steps.size() > 2 ? 2 : 0;
  double total_seconds = 0;
  for (size_t i = skip; i < steps.size(); ++i)
    total_seconds += ExactStepSeconds(*steps[i], summary.tokens_per_device_step);
  summary.steps_timed = static_cast<int64_t>(steps.size() - skip);
  if (summary.steps_timed == 0 || !(total_seconds > 0)) return summary;
  double mean = total_seconds / static_cast<double>(summary.steps_timed);
  summary.mean_step_seconds = mean;

  if (summary.tokens_per_device_step) {
    summary.tokens_per_second_per_device = *summary.tokens_per_device_step / mean;
    summary.tokens_per_second_per_slice = *summary.tokens_per_second_per_device * summary.devices_per_slice;
    summary.tokens_per_second = *summary.tokens_per_second_per_slice * summary.slices;
  }
  if (summary.tflops_per_device_step) {
    summary.tflops_per_second_per_device = *summary.tflops_per_device_step / mean;
    if (facts.peak_tflops_per_device && *facts.peak_tflops_per_device > 0) {
      summary.mfu = *summary.tflops_per_second_per_device / *facts.peak_tflops_per_device;
    }
  }
  summary.final_loss = Finite(summary.final_loss);
  return summary;
}

nlohmann::json SummaryToJson(const TrainingSummary& s) {
  return {
      {"steps_logged", s.steps_logged},
      {"last_step", Optional(s.last_step)},
      {"steps_requested", Optional(s.steps_requested)},
      {"steps_timed", s.steps_timed},
      {"mean_step_seconds", Optional(s.mean_step_seconds)},
      {"tokens_per_device_step", Optional(s.tokens_per_device_step)},
      {"tflops_per_device_step", Optional(s.tflops_per_device_step)},
      {"tokens_per_second_per_device", Optional(s.tokens_per_second_per_device)},
      {"tokens_per_second_per_slice", Optional(s.tokens_per_second_per_slice)},
      {"tokens_per_second", Optional(s.tokens_per_second)},
      {"tflops_per_second_per_device", Optional(s.tflops_per_second_per_device)},
      {"mfu", Optional(s.mfu)},
      {"final_loss", Optional(s.final_loss)},
      {"devices_per_slice", s.devices_per_slice},
      {"slices", s.slices},
      {"nan_loss", s.nan_loss},
  };
}

std::string FormatSummary(const TrainingSummary& s) {
  auto or_dash = [](const std::optional<double>& value, const char* format) {
    return value ? fmt::format(fmt::runtime(format), *value) : std::string("-");
  };
  std::string steps = std::to_string(s.steps_logged);
  if (s.steps_requested) steps += " of " + std::to_string(*s.steps_requested);
  std::string timed = s.steps_timed == s.steps_logged ? "all steps" : fmt::format("last {} steps", s.steps_timed);
  std::string out;
  out += fmt::format("{:<22}{}\n", "steps:", steps);
  out += fmt::format("{:<22}{} ({}; steps 0 and 1 carry start-up)\n",
                     "mean step time:", or_dash(s.mean_step_seconds, "{:.4g} s"), timed);
  out += fmt::format("{:<22}{}\n", "tokens/s per device:", or_dash(s.tokens_per_second_per_device, "{:.6g}"));
  out +=
      fmt::format("{:<22}{} ({} device{}{})\n", "tokens/s per slice:", or_dash(s.tokens_per_second_per_slice, "{:.6g}"),
                  s.devices_per_slice, s.devices_per_slice == 1 ? "" : "s",
                  s.slices > 1 ? fmt::format(", {} slices: {:.6g} in all", s.slices, s.tokens_per_second.value_or(0))
                               : std::string());
  out += fmt::format("{:<22}{}\n", "TFLOP/s per device:", or_dash(s.tflops_per_second_per_device, "{:.4g}"));
  out += fmt::format("{:<22}{}\n",
                     "MFU:", s.mfu ? fmt::format("{:.1f}%", *s.mfu * 100) : std::string("- (no peak for this device)"));
  out += fmt::format("{:<22}{}\n", "final loss:", s.nan_loss ? std::string("nan") : or_dash(s.final_loss, "{:.4g}"));
  return out;
}

}  // namespace tputrain::maxtext
