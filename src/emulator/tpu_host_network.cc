#include "tputrain/emulator/tpu_host_network.h"

namespace tputrain::emulator {

std::string TpuHostAddress(int64_t index) {
  // 250 hosts per /24 keeps clear of .0 and .255; 10.213.0.x is the bridge's; 254 × 250 hosts in all.
  int64_t third = 1 + (index / 250) % 254;
  int64_t fourth = 1 + index % 250;
  return "10.213." + std::to_string(third) + "." + std::to_string(fourth);
}

}  // namespace tputrain::emulator
