#include "tputrain/workflow/node_pools.h"

#include <cctype>
#include <optional>

#include "tputrain/catalog/gke_versions.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/text.h"
#include "tputrain/gcp/names.h"

namespace tputrain::workflow {
namespace {

// The slice the flags name, directly (--tpu-type) or by machine type and topology; none when
// only a machine type is given that is not a TPU one (a CPU pool).
struct PoolSlice {
  catalog::TpuSliceType slice;
  // Named by --tpu-type or --tpu-topology: the pool says its topology (where the generation takes
  // one). A TPU machine type alone is its one-host slice, sent as gcloud sends it: no topology.
  bool named = false;
  // A tpu7x machine type alone with --placement-policy: the policy says the topology, read when
  // the pool is created (its hosts are then checked against --num-nodes).
  bool topology_from_policy = false;
};

core::Result<std::optional<PoolSlice>> SliceOf(const TpuPoolRequest& request) {
  if (!request.tpu_type.empty()) {
    auto found = catalog::FindSliceType(request.tpu_type);
    if (!found) return core::Fail(core::Error::Usage("--tpu-type: " + found.error().message));
    if (!request.machine_type.empty() && request.machine_type != found->machine_type) {
      // GKE's one-host form of the same slice (v6e-8 on ct6e-standard-8t).
      auto one_host = catalog::OneHostVariant(*found);
      if (!one_host || one_host->machine_type != request.machine_type) {
        return core::Fail(core::Error::Usage(
            "--machine-type: " + request.tpu_type + " runs on " + found->machine_type +
            (one_host && one_host->machine_type != found->machine_type ? " or " + one_host->machine_type : "") +
            ", not " + request.machine_type));
      }
      found = one_host;
    }
    if (!request.tpu_topology.empty() && request.tpu_topology != found->topology) {
      return core::Fail(core::Error::Usage("--tpu-topology: " + request.tpu_type + " is " + found->topology + ", not " +
                                           request.tpu_topology));
    }
    return std::optional<PoolSlice>(PoolSlice{*found, true, false});
  }
  if (!request.tpu_topology.empty()) {
    if (request.machine_type.empty()) {
      return core::Fail(core::Error::Usage("--machine-type: required with --tpu-topology (or give --tpu-type)"));
    }
    auto found = catalog::FindSliceByMachineType(request.machine_type, request.tpu_topology);
    if (!found) return core::Fail(core::Error::Usage("--tpu-topology: " + found.error().message));
    return std::optional<PoolSlice>(PoolSlice{*found, true, false});
  }
  if (request.machine_type.empty()) {
    return core::Fail(core::Error::Usage("--tpu-type: expected a TPU slice type (or --machine-type)"));
  }
  auto one_host = catalog::SingleHostSliceOf(request.machine_type);
  if (!one_host) return std::optional<PoolSlice>();
  const bool from_policy = !request.placement_policy.empty() && one_host->generation->workload_policy;
  return std::optional<PoolSlice>(PoolSlice{*one_host, false, from_policy});
}

core::Error DiskSizeError(const std::string& text, const std::string& why) {
  return core::Error::Usage("--disk-size: expected a whole number of GB from " + std::to_string(kMinDiskSizeGb) +
                            " to " + std::to_string(kMaxDiskSizeGb) + " (3000, 3000GB, 3TB), got '" + text + "'" +
                            (why.empty() ? "" : ": " + why));
}

// gcloud's fields for each choice; flex-start as xpk's `--flex` asks gcloud for it: no nodes until
// a workload asks, then up to the slice's hosts, in any zone of the pool, never repaired in place.
void ApplyCapacity(const Capacity& capacity, gcp::container::NodePoolSpec& spec) {
  switch (capacity.mode) {
    case CapacityMode::kOnDemand:
      return;
    case CapacityMode::kSpot:
      spec.spot = true;
      return;
    case CapacityMode::kReservation:
      spec.reservation = capacity.reservation;
      return;
    case CapacityMode::kFlexStart:
      spec.flex_start = true;
      spec.no_reservation = true;
      spec.auto_repair = false;
      spec.autoscaling = gcp::container::NodePoolAutoscaling{0, spec.node_count, "ANY"};
      spec.node_count = 0;
      if (capacity.max_run_duration) spec.max_run_duration = std::to_string(capacity.max_run_duration->count()) + "s";
      return;
  }
}

}  // namespace

core::Result<int> ParseDiskSizeGb(const std::string& text) {
  // DIGITS[.DIGITS][UNIT], kept small enough that the arithmetic below cannot overflow.
  std::size_t at = 0;
  int64_t whole = 0;
  int64_t fraction = 0;
  int64_t scale = 1;  // 10^(fraction digits)
  while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) && at < 9) {
    whole = whole * 10 + (text[at++] - '0');
  }
  if (at == 0) return core::Fail(DiskSizeError(text, ""));
  if (at < text.size() && text[at] == '.') {
    ++at;
    for (int digits = 0; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); ++digits, ++at) {
      if (digits == 6) return core::Fail(DiskSizeError(text, ""));
      fraction = fraction * 10 + (text[at] - '0');
      scale *= 10;
    }
  }
  std::string unit = text.substr(at);
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  int64_t per_unit = 0;  // GB in one unit
  if (unit.empty() || unit == "GB" || unit == "GIB") per_unit = 1;
  if (unit == "TB" || unit == "TIB") per_unit = 1024;
  if (per_unit == 0) return core::Fail(DiskSizeError(text, ""));
  const int64_t scaled = (whole * scale + fraction) * per_unit;
  if (scaled % scale != 0) return core::Fail(DiskSizeError(text, "not a whole number of GB"));
  const int64_t gb = scaled / scale;
  if (gb < kMinDiskSizeGb) return core::Fail(DiskSizeError(text, "GKE's smallest boot disk is 10 GB"));
  if (gb > kMaxDiskSizeGb) return core::Fail(DiskSizeError(text, "a Persistent Disk is at most 64 TiB"));
  return static_cast<int>(gb);
}

namespace {

// Where a multi-host tpu7x slice's placement comes from, and which topology a pool sends.
core::Status PlaceSlice(const PoolSlice& found, const TpuPoolRequest& request, gcp::container::NodePoolSpec& spec) {
  const catalog::TpuSliceType& slice = found.slice;
  const catalog::TpuGeneration& generation = *slice.generation;
  spec.slice_topology = found.topology_from_policy ? "" : slice.topology;
  const bool multi_host = found.topology_from_policy || !slice.single_host();
  if (!request.placement_policy.empty()) {
    if (!generation.workload_policy || !multi_host) {
      return core::Fail(
          core::Error::Usage("--placement-policy: only multi-host tpu7x slices are placed by a workload "
                             "policy; " +
                             slice.accelerator_type + (multi_host ? " takes a TPU topology" : " is one host")));
    }
    if (auto valid = gcp::CheckResourceId("--placement-policy", request.placement_policy, 63); !valid) {
      return core::Fail(valid.error());
    }
  }
  if (generation.workload_policy) {
    // GKE: the workload policy "replaces the --tpu-topology flag"; one host needs neither.
    spec.tpu_topology.clear();
    if (multi_host) {
      spec.placement_policy = request.placement_policy;  // "": the run's own, named when created
      spec.own_placement_policy = request.placement_policy.empty();
    }
    return {};
  }
  // gcloud sends the topology it is given; a one-host machine type (ct6e-standard-8t) needs none.
  const bool variant = slice.machine_type != generation.multi_host_machine_type &&
                       slice.machine_type != generation.single_chip_machine_type;
  spec.tpu_topology = found.named && !variant ? slice.topology : request.tpu_topology;
  return {};
}

// The zones the pool may land in: its --node-locations, else the cluster's location.
core::Status CheckPoolZones(const catalog::TpuSliceType& slice, const TpuPoolRequest& request) {
  if (request.skip_zone_check || request.location.empty()) return {};
  if (request.node_locations.empty()) {
    return catalog::CheckOffered(slice, request.location, "--location", kSkipZoneCheckFlag);
  }
  for (const auto& zone : request.node_locations) {
    if (auto offered = catalog::CheckOffered(slice, zone, "--node-locations", kSkipZoneCheckFlag); !offered) {
      return offered;
    }
  }
  return {};
}

}  // namespace

core::Result<std::vector<gcp::container::NodePoolSpec>> NodePoolsFor(const std::string& name,
                                                                     const TpuPoolRequest& request) {
  // NAME-i must fit too.
  const std::string longest = request.num_slices == 1 ? name : name + "-" + std::to_string(request.num_slices - 1);
  if (auto valid = gcp::CheckResourceId("NAME", longest, gcp::kGkeNameLength); !valid) return core::Fail(valid.error());
  auto found = SliceOf(request);
  if (!found) return core::Fail(found.error());
  gcp::container::NodePoolSpec spec;
  spec.machine_type = request.machine_type;
  spec.tpu_topology = request.tpu_topology;
  spec.node_count = request.num_nodes;
  if (*found) {
    const catalog::TpuSliceType& type = (*found)->slice;
    spec.machine_type = type.machine_type;
    if ((*found)->named || (*found)->topology_from_policy) {
      if (request.num_nodes != 0 && request.num_nodes != type.hosts && !(*found)->topology_from_policy) {
        return core::Fail(core::Error::Usage("--num-nodes: " + type.accelerator_type + " (" + type.topology + ") has " +
                                             core::Counted(type.hosts, "host") + ", not " +
                                             std::to_string(request.num_nodes)));
      }
      if ((*found)->topology_from_policy && request.num_nodes == 0) {
        return core::Fail(
            core::Error::Usage("--num-nodes: required with --placement-policy and --machine-type "
                               "(the hosts of the policy's topology), or give --tpu-type"));
      }
      spec.node_count = request.num_nodes != 0 ? request.num_nodes : type.hosts;
    } else {
      // A TPU machine type alone: one-host slices, one unless told (gcloud's default is 3).
      spec.node_count = request.num_nodes != 0 ? request.num_nodes : 1;
    }
    if (auto placed = PlaceSlice(**found, request, spec); !placed) return core::Fail(placed.error());
    if (auto zones = CheckPoolZones(type, request); !zones) return core::Fail(zones.error());
    if (!request.node_version.empty()) {
      if (auto recent = catalog::CheckGkeVersion(*type.generation, request.node_version, false, "--node-version");
          !recent) {
        return core::Fail(recent.error());
      }
    }
  } else {
    if (!request.placement_policy.empty()) {
      return core::Fail(
          core::Error::Usage("--placement-policy: only multi-host tpu7x slices are placed by a "
                             "workload policy; " +
                             request.machine_type + " is not a TPU machine type"));
    }
    // A CPU pool: one node unless told otherwise (gcloud's default is 3, and a CPU pool here is
    // typically seed 002's m1-ultramem-160 converter, billed per node).
    if (spec.node_count == 0) spec.node_count = 1;
  }
  spec.version = request.node_version;
  if (!request.disk_size.empty()) {
    auto disk = ParseDiskSizeGb(request.disk_size);
    if (!disk) return core::Fail(disk.error());
    spec.disk_size_gb = *disk;
  }
  if (spec.node_count <= 0) return core::Fail(core::Error::Usage("--num-nodes: expected a positive node count"));
  if (request.num_slices < 1) return core::Fail(core::Error::Usage("--num-slices: expected at least 1"));
  spec.placement_type = request.placement_type;
  spec.workload_metadata = request.workload_metadata;
  if (request.threads_per_core != 0) spec.threads_per_core = request.threads_per_core;
  spec.node_locations = request.node_locations;
  spec.oauth_scopes = gcp::container::ExpandScopes(request.scopes);
  auto capacity = ResolveCapacity(request.capacity);
  if (!capacity) return core::Fail(capacity.error());
  ApplyCapacity(*capacity, spec);
  std::vector<gcp::container::NodePoolSpec> pools;
  for (int i = 0; i < request.num_slices; ++i) {
    pools.push_back(spec);
    pools.back().name = request.num_slices == 1 ? name : name + "-" + std::to_string(i);
  }
  return pools;
}

core::Result<catalog::TpuSliceType> SliceOfPool(const gcp::container::NodePoolSpec& spec) {
  const std::string& topology = spec.slice_topology.empty() ? spec.tpu_topology : spec.slice_topology;
  if (topology.empty()) return catalog::SingleHostSliceOf(spec.machine_type);
  return catalog::FindSliceByMachineType(spec.machine_type, topology);
}

}  // namespace tputrain::workflow
