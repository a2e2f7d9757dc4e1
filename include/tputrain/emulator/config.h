#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/emulator/billing_catalog.h"
#include "tputrain/emulator/faults.h"

// How an emulator behaves: from `tputrain emulator start`'s flags (StartOptions, as typed) to the
// checked EmulatorConfig the API fake runs with.
namespace tputrain::emulator {

inline constexpr int kDefaultPort = 8780;

// Whether a READY TPU VM's hosts exist only on paper (documentation addresses) or boot as
// network namespaces that run the node's startup script (`--tpu-hosts netns`).
enum class TpuHostMode { kPaper, kNetns };

// How long the operations of one kind of call run: `--op-latency clusters.create=20s`.
struct MethodLatency {
  std::string target;  // a method id or its tail ("clusters.create", "builds.create")
  std::chrono::milliseconds latency{0};
};

struct EmulatorConfig {
  std::chrono::milliseconds op_latency{2000};   // how long an operation runs
  std::vector<MethodLatency> method_latencies;  // over op_latency, for the calls they name
  // The operation latency of the call `method_id` starts: the first method latency naming it,
  // else op_latency.
  std::chrono::milliseconds LatencyOf(std::string_view method_id) const;
  // The latency a method latency names for `method_id`, if one does: the calls Google usually
  // answers with an operation already done (Artifact Registry's, Service Usage's) end at once
  // unless one is named.
  std::optional<std::chrono::milliseconds> NamedLatencyOf(std::string_view method_id) const;
  // How long a `stuck` operation runs; 0: for ever. Real stuck operations do end (GKE times a
  // create out after hours), so a bounded stuck lets cleanup tests wait one out.
  std::chrono::milliseconds stuck_for{0};
  std::string state_file;  // persist the world here (atomic rewrite)
  std::vector<FaultRule> faults;
  uint64_t seed = 0;
  std::string cluster_endpoint;  // "host[:port]" clusters report as `endpoint`; default 127.0.0.1
  std::string cluster_ca_pem;    // PEM clusters report (base64) as masterAuth.clusterCaCertificate
  // The request log keeps the latest entries within both bounds.
  size_t request_log_limit = 20000;
  size_t request_log_bytes = 64 * 1024 * 1024;
  // Services that answer 403 SERVICE_DISABLED until enabled through Service Usage
  // ("container.googleapis.com", ...); every other service is enabled.
  std::vector<std::string> disabled_apis;
  TpuHostMode tpu_hosts = TpuHostMode::kPaper;
  std::string host_path;  // --host-path: its bin/ leads the hosts' PATH
  // TPU chips per zone and quota per region that a new or reset world starts with:
  // {"chips": {"ZONE/GEN/MODE": N}, "quota": {"REGION/GEN/MODE": N}} (capacity.h); empty: no limits.
  nlohmann::json capacity = nlohmann::json::object();
  // How long GKE keeps retrying a node pool that a stockout left in ERROR: meanwhile the cluster
  // answers "incompatible operation" and the pool turns RUNNING if chips free up. 0: it gives up at once.
  std::chrono::milliseconds stockout_retry{0};
  std::vector<CatalogPrice> catalog_prices;  // --tpu-price: the Billing Catalog's, over its defaults
};

// `tputrain emulator start` flags, as typed; MakeConfig checks them (usage errors, exit 2).
struct StartOptions {
  std::string host = "127.0.0.1";
  int port = kDefaultPort;        // 0: any free port
  std::string op_latency = "2s";  // DURATION[,METHOD=DURATION...]
  std::string stuck_for;          // empty or "0": stuck operations never finish
  std::string state_file;
  std::string faults;
  uint64_t seed = 0;
  std::string cluster_endpoint;            // URL or host[:port] that created clusters report
  std::string cluster_ca_file;             // PEM file that created clusters report as their CA
  std::vector<std::string> disabled_apis;  // answer SERVICE_DISABLED until enabled
  std::string tpu_hosts = "paper";         // "netns": READY TPU VMs' hosts boot as network namespaces
  std::string host_path;                   // with netns: a directory whose bin/ leads the hosts' PATH
  std::string capacity;                    // ZONE/GEN[/MODE]=CHIPS,...: chips each zone has
  std::string quota;                       // REGION/GEN[/MODE]=CHIPS,...: each API's regional quota
  std::string stockout_retry;              // empty or "0": a stocked-out pool is not retried
  std::vector<std::string> tpu_prices;     // GEN:REGION:KIND=USD, the Billing Catalog's
};

core::Result<EmulatorConfig> MakeConfig(const StartOptions& options);

}  // namespace tputrain::emulator
