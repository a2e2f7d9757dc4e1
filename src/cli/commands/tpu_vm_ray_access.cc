// The flags of how a TPU VM worker is reached (what they mean: workflow/tpu_vm_reach.h).
#include "commands/ray_common.h"

namespace tputrain::cli {

void AddTpuVmReachFlags(CLI::App& command, TpuVmReach& reach) {
  command.add_option("--via", reach.via, "How to reach the worker: iap (IAP TCP forwarding) or ssh (ssh -L)")
      ->check(CLI::IsMember({"iap", "ssh"}));
  command.add_option("--ssh-key-file", reach.ssh_key_file,
                     "With --via ssh: the private key (default ~/.ssh/google_compute_engine, made when missing)");
  command.add_flag("--internal-ip", reach.internal_ip,
                   "With --via ssh: the worker's internal address rather than its external IP");
}

void AddTpuVmRayFlag(CLI::App& command, TpuVmRayTarget& tpu_vm) {
  command.add_option("--tpu-vm", tpu_vm.name,
                     "The Ray head of a TPU VM made with tpu-vm create --ray (with --zone): reached through IAP, or "
                     "--via ssh");
  AddTpuVmReachFlags(command, tpu_vm.reach);
}

}  // namespace tputrain::cli
