#pragma once

#include <chrono>
#include <cmath>

namespace tputrain::workflow {

// Durations and rates in --format json: seconds, and a value to the thousandth.
inline double Seconds(std::chrono::milliseconds duration) { return static_cast<double>(duration.count()) / 1000.0; }
inline double Rounded(double value) { return std::round(value * 1000.0) / 1000.0; }

}  // namespace tputrain::workflow
