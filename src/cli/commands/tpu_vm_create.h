#pragma once

// tpu-vm create's flags, shared by the files that read them (private to the CLI).
#include <string>
#include <vector>

#include "commands/provision_common.h"
#include "tputrain/core/result.h"
#include "tputrain/workflow/capacity.h"
#include "tputrain/workflow/tpu_vm_ray.h"
#include "tputrain/workflow/zone_failover.h"

namespace tputrain::cli {

struct TpuVmCreateOptions {
  std::vector<std::string> names;
  std::string accelerator_type;
  std::string version;
  std::vector<std::string> metadata;
  std::vector<std::string> metadata_from_file;
  std::vector<std::string> labels;
  workflow::TpuVmCapacityFlags capacity;
  workflow::FailoverFlags failover;
  bool skip_zone_check = false;
  int num_slices = 1;  // >1: one queued resource making NAME-0..NAME-N-1 (multislice)
  // --ray: Ray started on every host at boot (seed 004), awaited through the hosts' reports.
  bool ray = false;
  std::string ray_version = workflow::kDefaultRayVersion;
  std::string setup;  // FILE
  std::vector<std::string> pip;
  std::string ray_start_args;
  std::string ray_timeout = "30m";
  std::string iap_firewall;  // --iap-firewall check|create|skip; "" is check (with --ray)
  ProvisionFlags provision;
};

// The Node the flags describe: the catalog's slice, metadata (and files), labels, and with --ray
// the boot metadata that starts Ray on every host. One usage line naming the flag otherwise.
core::Result<gcp::tpu::NodeSpec> TpuVmSpecOf(const TpuVmCreateOptions& options);

}  // namespace tputrain::cli
