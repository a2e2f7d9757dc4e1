// Deliberate defects, one per argument, that the sanitizer build must catch: the proof that a
// finding in the sanitized unit tests fails the run rather than scrolling past.
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

namespace {

int HeapOverflow() {
  auto buffer = std::make_unique<char[]>(8);
  volatile std::size_t index = 8;  // volatile: the compiler must not see the overflow coming
  buffer[index] = 'x';
  return buffer[0];
}

int SignedOverflow(int argc) {
  int value = std::numeric_limits<int>::max() - 1 + argc;  // argc is 2: INT_MAX + 1
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string defect = argc > 1 ? argv[1] : "";
  if (defect == "heap-buffer-overflow") return HeapOverflow();
  if (defect == "signed-integer-overflow") return SignedOverflow(argc) == 0 ? 1 : 0;
  std::fprintf(stderr, "usage: sanitizer_canary heap-buffer-overflow|signed-integer-overflow\n");
  return 2;
}
