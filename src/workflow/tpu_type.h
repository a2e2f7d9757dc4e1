#pragma once

// A TPU slice type a command is given (--tpu-type), checked against the catalog before any call.
#include <string>
#include <string_view>

#include "tputrain/core/result.h"

namespace tputrain::workflow {

// Empty passes (the type is chosen later); otherwise a slice the catalog knows, else the
// catalog's usage line prefixed with `flag`.
core::Status CheckTpuType(std::string_view flag, const std::string& tpu_type);

}  // namespace tputrain::workflow
