#include "tpu_type.h"

#include "tputrain/catalog/tpu_types.h"

namespace tputrain::workflow {

core::Status CheckTpuType(std::string_view flag, const std::string& tpu_type) {
  if (tpu_type.empty()) return {};
  if (auto slice = catalog::FindSliceType(tpu_type); !slice) {
    core::Error error = slice.error();
    error.message = std::string(flag) + ": " + error.message;
    return core::Fail(error);
  }
  return {};
}

}  // namespace tputrain::workflow
