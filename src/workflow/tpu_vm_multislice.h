#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/gcp/tpu/client.h"
#include "tputrain/workflow/provision.h"

// Multislice TPU VMs (seed 004 part C): N slices of one type made together by a queued resource
// (tpu.projects.locations.queuedResources with multisliceParams), nodes ID-0..ID-N-1. With Ray, one
// cluster spans them: slice 0's worker 0 runs the head and every other host joins it.
namespace tputrain::workflow {

struct MultisliceCreate {
  gcp::tpu::QueuedResourceRef ref;
  gcp::tpu::NodeSpec spec;  // each slice's; with --ray its metadata is RayMetadata's (slices > 1)
  // 0: one TPU VM named ID, queued (`tpu-vm create --queued`) rather than created at once.
  int slices = 2;
  gcp::tpu::Queueing queueing;
};

// Creates the queued resource (ledgered as "queued-resource"; adopted when it exists with this
// shape) and waits until it is ACTIVE with every node READY. FAILED or SUSPENDED end it with the
// API's reason; the queued resource stays for `cleanup` (it holds no TPUs then).
core::Result<Outcome> CreateMultislice(ProvisionEnv& env, const MultisliceCreate& request);

// Deletes the queued resource with force=true: its nodes go first.
core::Result<Outcome> DeleteQueuedResource(ProvisionEnv& env, const gcp::tpu::QueuedResourceRef& ref);

// `tpu-vm delete NAME`: the queued resource NAME with its slices when there is one (a name given
// to --num-slices), else the TPU VM NAME. A dry run cannot look, and says the TPU VM's delete.
core::Result<Outcome> DeleteTpuVmOrSlices(ProvisionEnv& env, const gcp::tpu::NodeRef& ref);

// The address every slice's hosts wait for (kRayHeadKey): worker 0 of node ID-0. Added with
// nodes.patch to every node whose metadata lacks it (the whole map sent again: patch replaces
// it), the operations awaited. A re-run finds it set and sends nothing.
core::Status HandOutRayHead(ProvisionEnv& env, const MultisliceCreate& request);

// `tpu-vm create ID --num-slices N --ray`: CreateMultislice, HandOutRayHead, then every slice's
// hosts awaited (`hosts` each); the outcome's details get "ray" per node.
core::Result<Outcome> CreateRayMultislice(ProvisionEnv& env, const MultisliceCreate& request, int hosts,
                                          std::chrono::milliseconds timeout);

// The node ids a multislice queued resource makes: ID-0..ID-N-1 (ID alone for `slices` 0).
std::vector<std::string> SliceNodeIds(const std::string& id, int slices);

}  // namespace tputrain::workflow
