#include "tputrain/maxtext/step_line.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace tputrain::maxtext {
namespace {

bool ConsumePrefix(std::string_view& text, std::string_view prefix) {
  if (text.substr(0, prefix.size()) != prefix) return false;
  text.remove_prefix(prefix.size());
  return true;
}

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Reads leading digits; false when there are none.
bool ConsumeInt(std::string_view& text, int64_t& value) {
  size_t n = 0;
  value = 0;
  while (n < text.size() && IsDigit(text[n])) value = value * 10 + (text[n++] - '0');
  text.remove_prefix(n);
  return n > 0;
}

// A whole field value: "1.234", "nan", "-0.5", "1e-05". MaxText formats with %.3f, or %.6f for
// the MoE load-balance loss, so "nan" and "inf" are the only words.
std::optional<double> ParseNumber(std::string_view text) {
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (text.empty() || text.size() > 64) return std::nullopt;
  std::string copy(text);
  char* end = nullptr;
  errno = 0;
  double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || errno == ERANGE) return std::nullopt;
  return value;
}

// `(RayTrainWorker pid=21663, ip=10.12.3.6) `: Ray's prefix for a line an actor printed.
bool ConsumeRayPrefix(std::string_view& text, LineOrigin& origin) {
  std::string_view rest = text;
  if (!ConsumePrefix(rest, "(")) return false;
  std::string actor;
  if (!ConsumePrefix(rest, "pid=")) {  // tasks without an actor class print as "(pid=N)"
    size_t name_end = 0;
    while (name_end < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[name_end])) != 0 ||
                                      rest[name_end] == '_' || rest[name_end] == '.' || rest[name_end] == ':')) {
      ++name_end;
    }
    if (name_end == 0) return false;
    actor = std::string(rest.substr(0, name_end));
    rest.remove_prefix(name_end);
    if (!ConsumePrefix(rest, " pid=")) return false;
  }
  int64_t pid = 0;
  if (!ConsumeInt(rest, pid)) return false;
  std::string ip;
  if (ConsumePrefix(rest, ", ip=")) {
    size_t close = rest.find(')');
    if (close == std::string_view::npos) return false;
    ip = std::string(rest.substr(0, close));
    rest.remove_prefix(close);
  }
  if (!ConsumePrefix(rest, ")")) return false;
  ConsumePrefix(rest, " ");
  origin.actor = std::move(actor);
  origin.pid = pid;
  origin.ip = std::move(ip);
  text = rest;
  return true;
}

// ` [repeated 3x across cluster]`: Ray's log dedup folded this many identical lines into one.
void ConsumeRepeatSuffix(std::string_view& text, LineOrigin& origin) {
  constexpr std::string_view kTail = "x across cluster]";
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (text.size() < kTail.size() || text.substr(text.size() - kTail.size()) != kTail) return;
  size_t open = text.rfind("[repeated ");
  if (open == std::string_view::npos) return;
  std::string_view count = text.substr(open + 10, text.size() - kTail.size() - open - 10);
  int64_t repeated = 0;
  if (!ConsumeInt(count, repeated) || !count.empty()) return;
  origin.repeated = static_cast<int>(repeated);
  text = text.substr(0, open);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
}

// `I1122 12:49:18.945887 1405 metric_logger.py:265] `: absl's prefix (severity, MMDD, time,
// thread id, file:line). Lines without it are returned unchanged.
void ConsumeAbslPrefix(std::string_view& text) {
  std::string_view rest = text;
  if (rest.empty() || std::string_view("IWEF").find(rest[0]) == std::string_view::npos) return;
  rest.remove_prefix(1);
  int64_t ignored = 0;
  if (!ConsumeInt(rest, ignored) || !ConsumePrefix(rest, " ")) return;
  size_t bracket = rest.find("] ");
  if (bracket == std::string_view::npos) return;
  std::string_view middle = rest.substr(0, bracket);  // "12:49:18.945887 1405 metric_logger.py:265"
  if (middle.size() < 8 || middle[2] != ':' || middle[5] != ':' || middle.find(' ') == std::string_view::npos) {
    return;
  }
  text = rest.substr(bracket + 2);
}

bool AssignField(StepMetrics& metrics, std::string_view key, std::string_view value) {
  auto number = ParseNumber(value);
  if (!number) return false;
  if (key == "seconds") {
    metrics.seconds = *number;
  } else if (key == "TFLOP/s/device") {
    metrics.tflops_per_device = *number;
  } else if (key == "Tokens/s/device") {
    metrics.tokens_per_device = *number;
  } else if (key == "total_weights") {
    metrics.total_weights = static_cast<int64_t>(std::llround(*number));
  } else if (key == "loss") {
    metrics.loss = *number;
  } else if (key == "live slice count") {
    metrics.live_slices = static_cast<int>(*number);
  } else {
    metrics.extra.emplace_back(std::string(key), *number);
  }
  return true;
}

// "N, seconds: S, key: value, ..." after `completed step: `. Needs the step and the seconds;
// a field that does not read as `key: number` ends the parse (what came before is kept).
std::optional<StepMetrics> ParseStepFields(std::string_view text, bool rampup) {
  StepMetrics metrics;
  metrics.rampup = rampup;
  if (!ConsumeInt(text, metrics.step)) return std::nullopt;
  bool have_seconds = false;
  while (ConsumePrefix(text, ", ")) {
    size_t end = text.find(", ");
    std::string_view field = text.substr(0, end);
    size_t colon = field.find(": ");
    if (colon == std::string_view::npos) break;
    std::string_view key = field.substr(0, colon);
    if (!AssignField(metrics, key, field.substr(colon + 2))) break;
    have_seconds = have_seconds || key == "seconds";
    text = end == std::string_view::npos ? std::string_view() : text.substr(end);
  }
  if (!have_seconds) return std::nullopt;
  return metrics;
}

void ParseBody(std::string_view body, ParsedLine& parsed) {
  constexpr std::string_view kStep = "completed step: ";
  constexpr std::string_view kRampup = "[Rampup Batch Size Phase], ";
  if (size_t at = body.find(kStep); at != std::string_view::npos) {
    bool rampup = at >= kRampup.size() && body.substr(at - kRampup.size(), kRampup.size()) == kRampup;
    parsed.metrics = ParseStepFields(body.substr(at + kStep.size()), rampup);
    if (parsed.metrics) parsed.kind = LineKind::kStep;
    return;
  }
  // 0.2.5 prints "completed profiler activation/deactivation step: N"; the words before
  // "step:" have varied, so any "completed profiler ... step: N" counts.
  if (size_t at = body.find("completed profiler "); at != std::string_view::npos) {
    std::string_view rest = body.substr(at);
    size_t step = rest.find("step: ");
    if (step != std::string_view::npos) {
      rest.remove_prefix(step + 6);
      if (ConsumeInt(rest, parsed.boundary_step)) parsed.kind = LineKind::kProfilerBoundary;
    }
    return;
  }
  std::string_view rest = body;
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (ConsumePrefix(rest, "number parameters: ")) {
    size_t space = rest.find(' ');
    auto count = ParseNumber(rest.substr(0, space));
    if (count && space != std::string_view::npos && rest.substr(space + 1, 7) == "billion") {
      parsed.kind = LineKind::kParameters;
      parsed.value = *count * 1e9;
    }
  } else if (ConsumePrefix(rest, "Total TFLOPs: ")) {
    if (auto tflops = ParseNumber(rest)) {
      parsed.kind = LineKind::kStepTflops;
      parsed.value = *tflops;
    }
  } else if (ConsumePrefix(rest, "Num_devices: ")) {
    int64_t devices = 0;
    if (ConsumeInt(rest, devices)) {
      parsed.kind = LineKind::kNumDevices;
      parsed.value = static_cast<double>(devices);
    }
  } else if (body.find("Aborting training due to NaN loss") != std::string_view::npos) {
    parsed.kind = LineKind::kNanAbort;
  }
}

}  // namespace

std::string StripAnsi(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      // CSI: parameters and intermediates, then one final byte in @..~.
      size_t j = i + 2;
      while (j < line.size() && (line[j] < 0x40 || line[j] > 0x7e)) ++j;
      i = j;
      continue;
    }
    out += line[i];
  }
  while (!out.empty() && out.back() == '\r') out.pop_back();
  return out;
}

ParsedLine ParseLine(std::string_view line) {
  ParsedLine parsed;
  std::string clean = line.find('\x1b') == std::string_view::npos && (line.empty() || line.back() != '\r')
                          ? std::string(line)
                          : StripAnsi(line);
  std::string_view text = clean;
  ConsumeRayPrefix(text, parsed.origin);
  ConsumeRepeatSuffix(text, parsed.origin);
  ConsumeAbslPrefix(text);
  ParseBody(text, parsed);
  return parsed;
}

}  // namespace tputrain::maxtext
