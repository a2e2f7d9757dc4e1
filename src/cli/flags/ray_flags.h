#pragma once

#include <CLI/CLI.hpp>

#include "tputrain/workflow/tpu_vm_reach.h"

// The flags `job`, `submit` and `tpu-vm` share: the Ray connection, and how a TPU VM is reached.
namespace tputrain::cli {

// --address URL and --header K:V (repeatable).
void AddRayConnectionFlags(CLI::App* command, ray::ConnectionFlags& flags);

// --via iap|ssh, --ssh-key-file, --internal-ip.
void AddTpuVmReachFlags(CLI::App& command, workflow::TpuVmReach& reach);
// --tpu-vm NAME: the Ray head of a `tpu-vm create --ray` node (with --zone), and how to reach it.
void AddTpuVmRayFlag(CLI::App& command, workflow::TpuVmRayTarget& tpu_vm);

}  // namespace tputrain::cli
