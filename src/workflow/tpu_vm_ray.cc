// What `tpu-vm create --ray` adds to a node, and how its hosts' Ray boot is watched.
#include "tputrain/workflow/tpu_vm_ray.h"

#include <algorithm>
#include <random>

#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/text.h"

namespace tputrain::workflow {
namespace {

constexpr std::pair<RayHostState, std::string_view> kStateNames[] = {
    {RayHostState::kBooting, "booting"},
    {RayHostState::kSetup, "setup"},
    {RayHostState::kInstalling, "installing"},
    {RayHostState::kStartingHead, "starting-head"},
    {RayHostState::kWaitingForAddress, "waiting-for-address"},
    {RayHostState::kWaitingForHead, "waiting-for-head"},
    {RayHostState::kJoining, "joining"},
    {RayHostState::kReady, "ready"},
    {RayHostState::kFailed, "failed"},
};

RayHostState StateFromName(std::string_view name) {
  for (const auto& [state, spelled] : kStateNames) {
    if (spelled == name) return state;
  }
  return RayHostState::kBooting;  // a state a later script writes: still on its way
}

std::string Summary(const std::vector<RayHostStatus>& hosts) {
  int ready = 0;
  std::map<std::string_view, int> others;
  for (const auto& host : hosts) {
    if (host.state == RayHostState::kReady) {
      ++ready;
    } else {
      ++others[RayHostStateName(host.state)];
    }
  }
  std::string line = std::to_string(ready) + "/" + std::to_string(hosts.size()) + " hosts ready";
  for (const auto& [state, count] : others) line += ", " + std::to_string(count) + " " + std::string(state);
  return line;
}

}  // namespace

std::string_view RayHostStateName(RayHostState state) {
  for (const auto& [known, spelled] : kStateNames) {
    if (known == state) return spelled;
  }
  return "booting";
}

nlohmann::json ToJson(const std::vector<RayNodeStatus>& nodes) {
  nlohmann::json json = nlohmann::json::array();
  for (const auto& node : nodes) {
    for (const auto& host : node.hosts) {
      json.push_back({{"node", node.node},
                      {"worker", host.worker},
                      {"state", RayHostStateName(host.state)},
                      {"ray_version", host.ray_version},
                      {"message", host.message}});
    }
  }
  return json;
}

std::string NewRayToken() {
  // libstdc++'s random_device reads the kernel's CSPRNG (getrandom/urandom).
  std::random_device random;
  constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (int i = 0; i < 32; ++i) {
    const auto byte = static_cast<unsigned>(random()) & 0xffu;
    token += kHex[byte >> 4];
    token += kHex[byte & 0xfu];
  }
  return token;
}

std::vector<RayHostStatus> RayHostsFrom(const std::vector<gcp::tpu::GuestAttribute>& values, int hosts) {
  std::vector<RayHostStatus> rows;
  for (int worker = 0; worker < hosts; ++worker) rows.push_back({std::to_string(worker)});
  for (const auto& value : values) {
    if (value.ns != kRayGuestNamespace) continue;
    int worker = -1;
    try {
      worker = std::stoi(value.worker_id);
    } catch (const std::exception&) {
      continue;  // not a worker number: not a host of this slice
    }
    if (worker < 0 || worker >= hosts) continue;
    auto& row = rows[static_cast<std::size_t>(worker)];
    if (value.key == "ray-state") row.state = StateFromName(value.value);
    if (value.key == "ray-message") row.message = value.value;
    if (value.key == "ray-version") row.ray_version = value.value;
  }
  return rows;
}

core::Result<std::vector<RayNodeStatus>> TpuVmRayStatus(gcp::tpu::Client& client, const gcp::tpu::NodeRef& ref) {
  std::vector<std::string> names{ref.node};
  auto first = client.GetNode(ref);
  if (!first && first.error().kind == core::ErrorKind::kNotFound) {
    auto queued = client.GetQueuedResource({ref.project, ref.zone, ref.node});
    if (!queued) return core::Fail(queued.error().kind == core::ErrorKind::kNotFound ? first.error() : queued.error());
    names = queued->node_ids;
  } else if (!first) {
    return core::Fail(first.error());
  }
  std::vector<RayNodeStatus> nodes;
  for (const auto& name : names) {
    const gcp::tpu::NodeRef node{ref.project, ref.zone, name};
    auto found = name == ref.node && first ? core::Result<gcp::tpu::Node>(*first) : client.GetNode(node);
    if (!found) return core::Fail(found.error());
    auto slice = catalog::FindSliceType(found->accelerator_type);
    if (!slice) return core::Fail(slice.error());
    auto values = client.GetGuestAttributes(node, std::string(kRayGuestNamespace) + "/");
    if (!values) return core::Fail(values.error());
    nodes.push_back({name, RayHostsFrom(*values, slice->hosts)});
  }
  return nodes;
}

core::Result<std::vector<RayHostStatus>> WaitForRay(gcp::tpu::Client& client, const gcp::tpu::NodeRef& node, int hosts,
                                                    std::chrono::milliseconds timeout, const core::PollEnv& poll,
                                                    core::Reporter& reporter) {
  core::PollOptions options;
  options.initial_delay = std::chrono::seconds(1);
  options.multiplier = 1.5;
  options.max_delay = std::chrono::seconds(10);
  options.timeout = timeout;
  options.timeout_note = "the TPU VM stays; tputrain tpu-vm ray-status " + node.node + " shows each host";
  options.is_transient = [](const core::Error& error) { return error.kind != core::ErrorKind::kFailedPrecondition; };
  std::vector<RayHostStatus> rows;
  std::string said;
  auto done = core::PollUntil(
      [&]() -> core::Result<bool> {
        auto values = client.GetGuestAttributes(node, std::string(kRayGuestNamespace) + "/");
        if (!values) return core::Fail(values.error());
        rows = RayHostsFrom(*values, hosts);
        for (const auto& row : rows) {
          if (row.state != RayHostState::kFailed) continue;
          return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                              "Ray on " + node.node + " worker " + row.worker + " failed: " +
                                                  (row.message.empty() ? "no reason given" : row.message)));
        }
        const std::string summary = Summary(rows);
        if (summary != said) reporter.Progress("ray " + node.node, summary);
        said = summary;
        return std::all_of(rows.begin(), rows.end(),
                           [](const RayHostStatus& row) { return row.state == RayHostState::kReady; });
      },
      options, poll);
  if (!done) return core::Fail(done.error());
  return rows;
}

core::Result<std::vector<Outcome>> CreateRayTpuVms(
    ProvisionEnv& env, const std::vector<std::pair<gcp::tpu::NodeRef, gcp::tpu::NodeSpec>>& nodes, int hosts,
    std::chrono::milliseconds timeout) {
  auto outcomes = CreateTpuVms(env, nodes);
  if (!outcomes || env.dry_run != nullptr || env.async) return outcomes;
  gcp::tpu::Client client(env.transport, env.endpoints.tpu);
  for (std::size_t i = 0; i < nodes.size() && i < outcomes->size(); ++i) {
    // The hosts boot together; one node's wait covers most of the next one's.
    auto rows = WaitForRay(client, nodes[i].first, hosts, timeout, env, env.reporter);
    if (!rows) return core::Fail(rows.error());
    nlohmann::json ray = nlohmann::json::array();
    for (const auto& row : *rows) {
      ray.push_back({{"worker", row.worker},
                     {"state", std::string(RayHostStateName(row.state))},
                     {"ray_version", row.ray_version}});
    }
    (*outcomes)[i].details["ray"] = ray;
    env.reporter.Done("ray " + nodes[i].first.node,
                      "Ray up on " + core::Counted(static_cast<long long>(hosts), "host"));
  }
  return outcomes;
}

nlohmann::json WithoutRayToken(nlohmann::json node) {
  if (node.is_object() && node.contains("metadata") && node["metadata"].is_object() &&
      node["metadata"].contains(kRayTokenKey)) {
    node["metadata"][kRayTokenKey] = "(redacted)";
  }
  return node;
}

}  // namespace tputrain::workflow
