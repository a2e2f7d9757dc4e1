#pragma once

#include <string>
#include <vector>

#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/result.h"
#include "tputrain/gcp/container/types.h"
#include "tputrain/workflow/capacity.h"

// The node pools a request asks for: TPU slices checked against the TPU catalog, or CPU pools
// (a machine type and no TPU flags), before any call.
namespace tputrain::workflow {

// GKE's boot disk sizes (container/v1 NodeConfig.diskSizeGb): at least 10 GB, as gcloud checks,
// and at most a Persistent Disk's 64 TiB.
inline constexpr int kMinDiskSizeGb = 10;
inline constexpr int kMaxDiskSizeGb = 65536;

// gcloud's node pool flags, by the same names (the error messages name them).
struct TpuPoolRequest {
  std::string tpu_type;  // "v6e-16": machine type, topology and node count from the catalog
  std::string machine_type;
  std::string tpu_topology;
  int num_nodes = 0;      // 0: the topology's host count
  int num_slices = 1;     // pools NAME-0..NAME-(n-1) when more than one
  std::string disk_size;  // --disk-size as typed ("3000", "3000GB", "3TB"); empty: the server's 100 GB
  std::string placement_type;
  std::string workload_metadata;
  int threads_per_core = 0;
  std::vector<std::string> node_locations;
  std::vector<std::string> scopes;  // aliases (cloud-platform) or URLs
  CapacityFlags capacity;           // --capacity, --spot, --reservation, --max-run-duration
  // --placement-policy: an existing workload policy for a multi-host tpu7x slice (the run makes
  // one otherwise, and deletes it in cleanup; this one it never deletes).
  std::string placement_policy;
  std::string node_version;  // --node-version: the nodes' GKE version (a tpu7x pool is pinned anyway)
  // The cluster's location (a zone or a region), for the zone catalog check; "" skips it.
  std::string location;
  bool skip_zone_check = false;  // --skip-zone-check: the catalog can lag Google's
};

// The flag that goes past the zone catalog.
inline constexpr char kSkipZoneCheckFlag[] = "--skip-zone-check";

// --disk-size as gcloud reads it: a number with an optional unit, GB (the default), GiB, TB or
// TiB, where GB and TB count in 1024s as gcloud's do ("3TB" is 3072). Anything that is not a
// whole number of GB from kMinDiskSizeGb to kMaxDiskSizeGb is one usage line naming --disk-size.
core::Result<int> ParseDiskSizeGb(const std::string& text);

// One pool per slice, with its capacity choice (a flex-start pool starts at 0 nodes and grows
// to the slice's hosts when a workload asks). A --tpu-type the catalog does not know, a --machine-type, --tpu-topology
// or --num-nodes that contradicts it, or a topology without a machine type is a usage error
// naming the flag. A machine type without TPU flags is a CPU pool (1 node unless --num-nodes), or
// for a TPU machine type its one-host slice (ct6e-standard-8t: v6e-8 on one VM, no topology sent).
// A multi-host tpu7x slice names a workload policy instead of a topology (the run's own unless
// --placement-policy); a single-host one sends neither. A --node-version below the generation's
// GKE minimum, and a zone (or region) the catalog says lacks the type, are usage errors too.
core::Result<std::vector<gcp::container::NodePoolSpec>> NodePoolsFor(const std::string& name,
                                                                     const TpuPoolRequest& request);

// The TPU slice a pool spec makes (its slice topology, else its tpuTopology, else its machine
// type's one-host slice); NotFound for a CPU pool.
core::Result<catalog::TpuSliceType> SliceOfPool(const gcp::container::NodePoolSpec& spec);

}  // namespace tputrain::workflow
