#include "tputrain/core/timeline.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace tputrain::core {
namespace {

double Millis(Timeline::Clock::duration duration) {
  return std::chrono::duration<double, std::milli>(duration).count();
}

}  // namespace

Timeline::Timeline()
    : origin_(Clock::now()), origin_wall_us_(std::chrono::duration_cast<std::chrono::microseconds>(
                                                 std::chrono::system_clock::now().time_since_epoch())
                                                 .count()),
      threads_{std::this_thread::get_id()} {}

void Timeline::Add(std::string name, Clock::time_point begin, Clock::time_point end) {
  std::lock_guard lock(mutex_);
  const auto id = std::this_thread::get_id();
  auto known = std::find(threads_.begin(), threads_.end(), id);
  if (known == threads_.end()) known = threads_.insert(threads_.end(), id);
  entries_.push_back({std::move(name), begin, end, static_cast<int>(known - threads_.begin())});
}

Timeline::Span::Span(Timeline* timeline, std::string name)
    : timeline_(timeline), name_(timeline != nullptr ? std::move(name) : std::string()), begin_(Clock::now()) {}

void Timeline::Span::End() {
  if (timeline_ == nullptr) return;
  timeline_->Add(std::move(name_), begin_, Clock::now());
  timeline_ = nullptr;
}

void Timeline::Print(std::ostream& out) const {
  std::lock_guard lock(mutex_);
  std::vector<Entry> entries = entries_;
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
  out << "phase origin " << origin_wall_us_ << "\n";
  char line[64];
  for (const auto& entry : entries) {
    std::snprintf(line, sizeof line, " %.3f %.3f %d\n", Millis(entry.begin - origin_), Millis(entry.end - origin_),
                  entry.thread);
    out << "phase " << entry.name << line;
  }
}

}  // namespace tputrain::core
