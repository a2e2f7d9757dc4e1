// libFuzzer entry point, built only with Clang (-fsanitize=fuzzer). With GCC the same
// RenderOnce runs under render_fuzz_test, a long randomized test with ASan and UBSan.
#include <cstddef>
#include <cstdint>

#include "render/fuzz_render.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tputrain::render::fuzz::RenderOnce(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
