#include "tputrain/workflow/node_pools.h"

#include <cctype>
#include <optional>

#include "tputrain/catalog/tpu_types.h"
#include "tputrain/gcp/names.h"

namespace tputrain::workflow {
namespace {

// The slice the flags name, directly (--tpu-type) or by machine type and topology; none when
// only a machine type is given (a CPU pool).
core::Result<std::optional<catalog::TpuSliceType>> SliceOf(const TpuPoolRequest& request) {
  if (!request.tpu_type.empty()) {
    auto found = catalog::FindSliceType(request.tpu_type);
    if (!found) return core::Fail(core::Error::Usage("--tpu-type: " + found.error().message));
    if (!request.machine_type.empty() && request.machine_type != found->machine_type) {
      return core::Fail(core::Error::Usage("--machine-type: " + request.tpu_type + " runs on " + found->machine_type +
                                           ", not " + request.machine_type));
    }
    if (!request.tpu_topology.empty() && request.tpu_topology != found->topology) {
      return core::Fail(core::Error::Usage("--tpu-topology: " + request.tpu_type + " is " + found->topology + ", not " +
                                           request.tpu_topology));
    }
    return std::optional<catalog::TpuSliceType>(*found);
  }
  if (!request.tpu_topology.empty()) {
    if (request.machine_type.empty()) {
      return core::Fail(core::Error::Usage("--machine-type: required with --tpu-topology (or give --tpu-type)"));
    }
    auto found = catalog::FindSliceByMachineType(request.machine_type, request.tpu_topology);
    if (!found) return core::Fail(core::Error::Usage("--tpu-topology: " + found.error().message));
    return std::optional<catalog::TpuSliceType>(*found);
  }
  if (request.machine_type.empty()) {
    return core::Fail(core::Error::Usage("--tpu-type: expected a TPU slice type (or --machine-type)"));
  }
  return std::optional<catalog::TpuSliceType>();
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

core::Result<std::vector<gcp::container::NodePoolSpec>> NodePoolsFor(const std::string& name,
                                                                     const TpuPoolRequest& request) {
  // NAME-i must fit too.
  const std::string longest = request.num_slices == 1 ? name : name + "-" + std::to_string(request.num_slices - 1);
  if (auto valid = gcp::CheckResourceId("NAME", longest, gcp::kGkeNameLength); !valid) return core::Fail(valid.error());
  auto slice = SliceOf(request);
  if (!slice) return core::Fail(slice.error());
  gcp::container::NodePoolSpec spec;
  spec.machine_type = request.machine_type;
  spec.tpu_topology = request.tpu_topology;
  spec.node_count = request.num_nodes;
  if (*slice) {
    const catalog::TpuSliceType& type = **slice;
    spec.machine_type = type.machine_type;
    spec.tpu_topology = type.topology;
    if (request.num_nodes != 0 && request.num_nodes != type.hosts) {
      return core::Fail(core::Error::Usage("--num-nodes: " + type.accelerator_type + " (" + type.topology + ") has " +
                                           std::to_string(type.hosts) + " host(s), not " +
                                           std::to_string(request.num_nodes)));
    }
    spec.node_count = type.hosts;
  } else if (spec.node_count == 0) {
    // A CPU pool: one node unless told otherwise (gcloud's default is 3, and a CPU pool here is
    // typically seed 002's m1-ultramem-160 converter, billed per node).
    spec.node_count = 1;
  }
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

}  // namespace tputrain::workflow
