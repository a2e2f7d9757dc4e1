#include "flags/ray_flags.h"

namespace tputrain::cli {

void AddRayConnectionFlags(CLI::App* command, ray::ConnectionFlags& flags) {
  command->add_option("--address", flags.address,
                      "Ray dashboard URL, e.g. http://127.0.0.1:8265 (default: RAY_ADDRESS, then ray_address "
                      "in tputrain.yaml)");
  command->add_option("--header", flags.headers,
                      "Extra HTTP header NAME:VALUE for an authenticated dashboard (repeatable; default: "
                      "RAY_JOB_HEADERS, a JSON object)");
}

// What --via and the rest mean: workflow/tpu_vm_reach.h.
void AddTpuVmReachFlags(CLI::App& command, workflow::TpuVmReach& reach) {
  command.add_option("--via", reach.via, "How to reach the worker: iap (IAP TCP forwarding) or ssh (ssh -L)")
      ->check(CLI::IsMember({"iap", "ssh"}));
  command.add_option("--ssh-key-file", reach.ssh_key_file,
                     "With --via ssh: the private key (default ~/.ssh/google_compute_engine, made when missing)");
  command.add_flag("--internal-ip", reach.internal_ip,
                   "With --via ssh: the worker's internal address rather than its external IP");
}

void AddTpuVmRayFlag(CLI::App& command, workflow::TpuVmRayTarget& tpu_vm) {
  command.add_option("--tpu-vm", tpu_vm.name,
                     "The Ray head of a TPU VM made with tpu-vm create --ray (with --zone): reached through IAP, or "
                     "--via ssh");
  AddTpuVmReachFlags(command, tpu_vm.reach);
}

}  // namespace tputrain::cli
