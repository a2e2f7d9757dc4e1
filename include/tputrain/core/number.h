#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tputrain/core/result.h"

namespace tputrain::core {

// A whole number given on the command line: decimal digits only, from `min` (at least 0) to
// `max`. Anything else (a sign, a fraction, NaN, a value out of range or past int64) is one usage
// line naming `flag`: "--steps: expected a whole number from 1 to 1000000000, got '-5'".
Result<int64_t> ParseWhole(std::string_view flag, std::string_view text, int64_t min, int64_t max);

// A count ("--steps 100", "--num-nodes 4"): a whole number from 1 to `max`.
Result<int64_t> ParseCount(std::string_view flag, std::string_view text, int64_t max);

// An amount of a resource, as Ray reserves them ("--entrypoint-num-cpus 0.5"): digits with an
// optional fraction, from 0 to `max`. No sign, exponent, NaN or infinity, so what is sent is what
// was typed: "--entrypoint-num-cpus: expected a number from 0 to 1000000, got '-1'".
Result<double> ParseAmount(std::string_view flag, std::string_view text, double max);

// A size in bytes: a whole number with an optional binary unit, "512MiB", "2GiB", "100K", "4096"
// (K, M, G, T and KiB, MiB, GiB, TiB all count in 1024s), from 1 byte to `max_bytes`.
Result<uint64_t> ParseByteSize(std::string_view flag, std::string_view text, uint64_t max_bytes);

// A size for people: "812 B", "1.4 KiB", "2.6 MiB", "1.2 GiB".
std::string HumanBytes(uint64_t bytes);

}  // namespace tputrain::core
