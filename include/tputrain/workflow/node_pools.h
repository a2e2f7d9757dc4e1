#pragma once

#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/gcp/container/types.h"

// The TPU slice node pools a request asks for, checked against the TPU catalog before any call.
namespace tputrain::workflow {

// gcloud's node pool flags, by the same names (the error messages name them).
struct TpuPoolRequest {
  std::string tpu_type;  // "v6e-16": machine type, topology and node count from the catalog
  std::string machine_type;
  std::string tpu_topology;
  int num_nodes = 0;   // 0: the topology's host count
  int num_slices = 1;  // pools NAME-0..NAME-(n-1) when more than one
  std::string placement_type;
  std::string workload_metadata;
  int threads_per_core = 0;
  std::vector<std::string> node_locations;
  std::vector<std::string> scopes;  // aliases (cloud-platform) or URLs
  bool spot = false;
  std::string reservation;
};

// One pool per slice. A --tpu-type the catalog does not know, a --machine-type, --tpu-topology
// or --num-nodes that contradicts it, or a topology without a machine type is a usage error
// naming the flag.
core::Result<std::vector<gcp::container::NodePoolSpec>> NodePoolsFor(const std::string& name,
                                                                     const TpuPoolRequest& request);

}  // namespace tputrain::workflow
