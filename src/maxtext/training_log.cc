#include "tputrain/maxtext/training_log.h"

namespace tputrain::maxtext {

int TrainingLog::Feed(std::string_view piece) {
  int added = 0;
  while (!piece.empty()) {
    size_t newline = piece.find('\n');
    if (newline == std::string_view::npos) {
      partial_.append(piece);
      break;
    }
    if (partial_.empty()) {
      added += Line(piece.substr(0, newline));
    } else {
      partial_.append(piece.substr(0, newline));
      added += Line(partial_);
      partial_.clear();
    }
    piece.remove_prefix(newline + 1);
  }
  return added;
}

int TrainingLog::Finish() {
  if (partial_.empty()) return 0;
  std::string last;
  last.swap(partial_);
  return Line(last);
}

int TrainingLog::Line(std::string_view line) {
  ++lines_;
  // Cheap rejection first: nearly all of MaxText's output (~860 config lines) is none of these.
  if (line.find("step") == std::string_view::npos && line.find("arameters") == std::string_view::npos &&
      line.find("TFLOPs") == std::string_view::npos && line.find("Num_devices") == std::string_view::npos &&
      line.find("NaN") == std::string_view::npos) {
    return 0;
  }
  ParsedLine parsed = ParseLine(line);
  switch (parsed.kind) {
    case LineKind::kStep: {
      auto [it, inserted] = steps_.try_emplace(parsed.metrics->step);
      if (inserted) {
        it->second.metrics = std::move(*parsed.metrics);
        arrival_.push_back(it->first);
      }
      it->second.lines += parsed.origin.repeated;
      return inserted ? 1 : 0;
    }
    case LineKind::kProfilerBoundary:
      ++profiler_boundaries_;
      break;
    case LineKind::kParameters:
      parameters_ = parsed.value;
      break;
    case LineKind::kStepTflops:
      step_tflops_ = parsed.value;
      break;
    case LineKind::kNumDevices:
      num_devices_ = static_cast<int64_t>(parsed.value);
      break;
    case LineKind::kNanAbort:
      nan_abort_ = true;
      break;
    case LineKind::kOther:
      break;
  }
  return 0;
}

}  // namespace tputrain::maxtext
