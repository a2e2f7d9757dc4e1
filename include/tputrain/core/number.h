#pragma once

#include <cstdint>
#include <string_view>

#include "tputrain/core/result.h"

namespace tputrain::core {

// A count given on the command line ("--steps 100"): decimal digits only, at least 1, at most
// `max`. Anything else (a sign, zero, a fraction, NaN, a value past `max` or past int64) is one
// usage line naming `flag`: "--steps: expected a whole number from 1 to 1000000000, got '-5'".
Result<int64_t> ParseCount(std::string_view flag, std::string_view text, int64_t max);

}  // namespace tputrain::core
