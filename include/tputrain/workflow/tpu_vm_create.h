#pragma once

// tpu-vm create: on-demand, Spot, queued or on a reservation, in the first zone with capacity,
// optionally with Ray on every host; multislices through one queued resource. The CLI fills a
// TpuVmCreateRequest from its flags; PlanTpuVmCreate checks all of it (one usage line naming the
// flag) before anything is sent, and CreatePlannedTpuVms makes what the plan says.
#include <chrono>
#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/gcp/tpu/types.h"
#include "tputrain/workflow/capacity.h"
#include "tputrain/workflow/iap_firewall.h"
#include "tputrain/workflow/provision.h"
#include "tputrain/workflow/tpu_vm_ray.h"
#include "tputrain/workflow/zone_failover.h"

namespace tputrain::workflow {

struct TpuVmCreateRequest {
  std::string project;
  std::string zone;  // the configured location; "" when --zones replaces it
  std::vector<std::string> names;
  std::string accelerator_type;
  std::string version;                          // "" is the generation's, from the catalog
  std::vector<std::string> metadata;            // KEY=VALUE
  std::vector<std::string> metadata_from_file;  // KEY=FILE
  std::vector<std::string> labels;              // KEY=VALUE
  TpuVmCapacityFlags capacity;
  FailoverFlags failover;  // replaced_zone: --zone as given
  bool skip_zone_check = false;
  int num_slices = 1;  // >1: one queued resource making NAME-0..NAME-N-1 (multislice)
  bool async = false;  // --async: nothing is awaited (refused with zone failover)
  // --ray: Ray started on every host at boot (seed 004), awaited through the hosts' reports.
  bool ray = false;
  std::string ray_version = kDefaultRayVersion;
  std::string setup;  // FILE every host runs first
  std::vector<std::string> pip;
  std::string ray_start_args;
  std::string ray_timeout = "30m";
  std::string iap_firewall;  // check|create|skip; "" is check (with --ray)
};

// A request checked and resolved: what CreatePlannedTpuVms makes. Only PlanTpuVmCreate makes one.
struct TpuVmCreatePlan {
  std::string project;
  std::string zone;  // "auto" or the first of --zones when the request named none
  std::vector<std::string> names;
  ZoneFailover failover;
  TpuVmCapacity capacity;
  gcp::tpu::NodeSpec spec;  // with --ray, its metadata starts Ray (and holds the token)
  int num_slices = 1;
  bool ray = false;
  int hosts = 1;  // per slice
  std::chrono::milliseconds ray_timeout{0};
  IapFirewallRequest iap;
  // The Ray token (a secret: the caller's redactor holds it before anything is printed); "" without --ray.
  std::string ray_token;
};

// The slice the catalog offers in the zones asked, the capacity path, the names (room left for a
// multislice's -<i>), metadata and its files, labels, the Ray boot, and the rules between them
// (queued resources wait in one zone, take one NAME, --queued not with --ray, --setup/--pip/
// --ray-start-args/--iap-firewall only with --ray). Reads --metadata-from-file and --setup.
core::Result<TpuVmCreatePlan> PlanTpuVmCreate(const TpuVmCreateRequest& request);

// Makes the plan's TPU VMs: a queued resource (multislice, --queued, --reservation), else the
// VMs in the first zone with capacity; with --ray, behind the IAP firewall rule's check or create,
// and awaited until every host's Ray joined.
core::Result<std::vector<Outcome>> CreatePlannedTpuVms(ProvisionEnv& env, const TpuVmCreatePlan& plan);

}  // namespace tputrain::workflow
