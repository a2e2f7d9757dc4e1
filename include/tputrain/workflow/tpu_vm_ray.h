#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/poll.h"
#include "tputrain/core/reporter.h"
#include "tputrain/core/result.h"
#include "tputrain/gcp/tpu/client.h"
#include "tputrain/workflow/provision.h"

// Ray on Cloud TPU VMs (seed 004) without ssh: every host runs a startup script at boot (it needs
// only bash and curl) that reads its place from the metadata server, starts Ray (a head on worker
// 0, the other hosts joined to it; Ray detects the TPU chips itself) and reports how far it got as
// guest attributes, which tputrain reads through the TPU API: no tunnel needed to watch a boot.
namespace tputrain::workflow {

// Metadata keys the startup script reads, beside the TPU's own (agent-worker-number,
// worker-network-endpoints, network-interfaces/0/ip).
inline constexpr char kRayTokenKey[] = "tputrain-ray-token";           // Ray's token (RAY_AUTH_MODE=token)
inline constexpr char kRayStartArgsKey[] = "tputrain-ray-start-args";  // more `ray start` arguments, one a line
inline constexpr char kRaySetupKey[] = "tputrain-setup";               // a script run before Ray starts
inline constexpr char kRayPackagesKey[] = "tputrain-ray-packages";     // pip installs, one a line, when given
inline constexpr char kRayVersionKey[] = "tputrain-ray-version";       // pip's ray[default]==V, when missing
// Seconds a host may take to join (--ray-timeout, the client's wait): the head's wait and the
// tries of `ray start --address` end there.
inline constexpr char kRayTimeoutKey[] = "tputrain-ray-timeout";
// Multislice: one Ray cluster across slices. Every host of a node with kRaySlicesKey waits for
// kRayHeadKey (slice 0's worker 0 address, set with nodes.patch once every slice has its
// addresses); the host at that address runs the head, all others join it.
inline constexpr char kRaySlicesKey[] = "tputrain-ray-slices";
inline constexpr char kRayHeadKey[] = "tputrain-ray-head";
// The guest-attribute namespace the hosts write into (ray-state, ray-message, ray-version).
inline constexpr char kRayGuestNamespace[] = "tputrain";
inline constexpr char kDefaultRayVersion[] = "2.60.0";

struct RayBoot {
  std::string ray_version = kDefaultRayVersion;  // installed with pip only when the image lacks `ray`
  std::vector<std::string> packages;             // --pip: more packages, installed on every host
  std::string setup;                             // --setup: a script's text, run first on every host
  std::string start_args;                        // --ray-start-args, split as a shell would: "--num-cpus=4"
  std::string token;                             // NewRayToken()
  int slices = 1;                                // --num-slices: >1 waits for kRayHeadKey
  std::chrono::seconds join_within{1800};        // --ray-timeout
};

// A fresh Ray token: 32 random bytes, hex.
std::string NewRayToken();

// The metadata that makes a node boot Ray: startup-script plus the keys above. --pip's values and
// --ray-start-args's words (split as a POSIX shell would, nothing expanded) go one a line, and
// each reaches pip or `ray start` as exactly one argument. A usage error naming the flag for a key
// also given by the user's --metadata, a --ray-version that is not a release, a value with a line
// break, or an unclosed quote.
core::Result<std::map<std::string, std::string>> RayMetadata(const RayBoot& boot,
                                                             const std::map<std::string, std::string>& user);

// What a re-run of `tpu-vm create --ray` finds different on the node it meets (its metadata
// `have`, from the node or a queued resource's node spec), as "FLAG (metadata KEY): want X, have
// Y" lines: --ray-version, --pip, --ray-start-args and --setup (the hosts read them only at
// boot, so an adopted node would never get them), or a node made without --ray. Nothing for a
// `want` without --ray's keys.
std::vector<std::string> RayBootDifferences(const std::map<std::string, std::string>& want, const nlohmann::json& have);

// What a host reported.
enum class RayHostState {
  kBooting,            // nothing reported yet
  kSetup,              // "setup": running --setup
  kInstalling,         // "installing": pip
  kStartingHead,       // "starting-head"
  kWaitingForAddress,  // "waiting-for-address": multislice, the head's address not handed out yet
  kWaitingForHead,     // "waiting-for-head": worker > 0, the head's GCS not up yet
  kJoining,            // "joining"
  kReady,              // "ready": its Ray node runs
  kFailed,             // "failed": ray-message says why
};
std::string_view RayHostStateName(RayHostState state);

struct RayHostStatus {
  std::string worker;  // "0".."N-1"
  RayHostState state = RayHostState::kBooting;
  std::string message;      // ray-message (a failure's reason)
  std::string ray_version;  // ray-version, once ready
};

// One row per host (0..hosts-1) from a node's guest attributes; hosts that said nothing are booting.
std::vector<RayHostStatus> RayHostsFrom(const std::vector<gcp::tpu::GuestAttribute>& values, int hosts);

// `tpu-vm ray-status NAME`: each host's report, per node; NAME may also be a multislice's queued
// resource, whose slices are then listed in order.
struct RayNodeStatus {
  std::string node;
  std::vector<RayHostStatus> hosts;
};
core::Result<std::vector<RayNodeStatus>> TpuVmRayStatus(gcp::tpu::Client& client, const gcp::tpu::NodeRef& ref);
// `tpu-vm ray-status --format json`: one object per host (node, worker, state, ray_version, message).
nlohmann::json ToJson(const std::vector<RayNodeStatus>& nodes);

// Waits until every host's Ray node runs: polls the guest attributes with backoff, says each
// change, fails at once (FailedPrecondition) when a host reports failed, with its reason.
core::Result<std::vector<RayHostStatus>> WaitForRay(gcp::tpu::Client& client, const gcp::tpu::NodeRef& node, int hosts,
                                                    std::chrono::milliseconds timeout, const core::PollEnv& poll,
                                                    core::Reporter& reporter);

// `tpu-vm create --ray`: creates the nodes (their spec's metadata already RayMetadata's), then,
// unless the env is a dry run or async, waits for each node's Ray (`hosts` per node) and adds its
// hosts to the node's outcome details ("ray": [{"worker", "state", "ray_version"}]).
core::Result<std::vector<Outcome>> CreateRayTpuVms(
    ProvisionEnv& env, const std::vector<std::pair<gcp::tpu::NodeRef, gcp::tpu::NodeSpec>>& nodes, int hosts,
    std::chrono::milliseconds timeout);

// A node's metadata as it may be shown: the Ray token replaced (describe, list, logs).
nlohmann::json WithoutRayToken(nlohmann::json node);

// The script itself (what `startup-script` holds): reads everything else from metadata.
std::string RayStartupScript();

}  // namespace tputrain::workflow
