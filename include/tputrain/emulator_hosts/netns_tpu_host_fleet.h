#pragma once

#include <memory>
#include <string>

#include "tputrain/core/result.h"
#include "tputrain/emulator/tpu_host_fleet.h"

namespace tputrain::emulator {

// The hosts of `--tpu-hosts netns`: each host of a READY node a network namespace on the
// emulator's bridge, with the node's startup script running in it. `host_path`: its bin/ leads
// the hosts' PATH. One fleet per machine: fails, in one line, without root or when another
// emulator runs hosts. Destruction ends every host and removes the bridge.
core::Result<std::unique_ptr<TpuHostFleet>> CreateNetnsTpuHostFleet(std::string host_path);

}  // namespace tputrain::emulator
