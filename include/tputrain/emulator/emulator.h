#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/clock.h"
#include "tputrain/core/result.h"
#include "tputrain/emulator/api.h"
#include "tputrain/emulator/faults.h"
#include "tputrain/emulator/handlers.h"
#include "tputrain/emulator/schema.h"
#include "tputrain/emulator/tpu_host_fleet.h"

namespace tputrain::emulator {

// A local stand-in for the Google Cloud APIs tputrain and gcloud call (GKE container/v1,
// Cloud TPU tpu/v2, Cloud Storage storage/v1, IAM iam/v1, Resource Manager v1, Service Usage),
// served under Google's own paths so that CLOUDSDK_API_ENDPOINT_OVERRIDES_* can point at it.
// Thread-safe: one lock around the world; operations advance lazily, on each request, from the
// injected clock.
class Emulator {
 public:
  static core::Result<std::unique_ptr<Emulator>> Create(EmulatorConfig config, core::Clock& clock);

  ApiResponse Handle(const ApiRequest& request);

  // Every resource and operation it holds (the admin endpoint's GET /_emulator/state).
  nlohmann::json State();
  // The request log, oldest first: method, path, query, body (JSON up to 1 MiB, else its size),
  // status, start and end (unix ms). RequestsText is GET /_emulator/requests' compact answer.
  nlohmann::json Requests();
  std::string RequestsText();
  void Reset();

  // --tpu-hosts netns: the hosts of READY TPU VM nodes boot in `fleet`, which the caller owns and
  // keeps alive while the emulator serves; deleted nodes' hosts end.
  void AttachTpuHosts(TpuHostFleet* fleet);
  // Advances the TPU operations and brings the hosts in line with the nodes. Handle calls it after
  // each request; the server also calls it periodically, so a node boots without being polled.
  void SyncTpuHosts();
  // A request to the hosts' metadata server (tpu_metadata.h) from `source_address`.
  ApiResponse HandleMetadata(const ApiRequest& request, const std::string& source_address);

  const EmulatorConfig& config() const { return config_; }

  // Method ids served, e.g. "container.projects.locations.clusters.create".
  static std::vector<std::string> MethodIds();
  // Those that start a long-running operation.
  static std::vector<std::string> OperationMethodIds();

 private:
  struct CompiledRoute {
    Route route;
    std::regex pattern;
  };
  Emulator(EmulatorConfig config, core::Clock& clock, SchemaSet schemas);
  ApiResponse HandleAdmin(const ApiRequest& request);
  ApiResponse HandleTpuHostsAdmin(const ApiRequest& request);
  ApiResponse HandleCapacityAdmin(const ApiRequest& request);
  ApiResponse Dispatch(const ApiRequest& request, int64_t now_ms);
  int64_t NowMs();
  void SaveLocked();

  EmulatorConfig config_;
  core::Clock& clock_;
  SchemaSet schemas_;
  std::vector<CompiledRoute> routes_;
  std::mutex mutex_;
  nlohmann::json world_;
  FaultPlan faults_;
  std::deque<std::string> requests_;  // each entry's JSON text
  size_t requests_bytes_ = 0;
  int64_t request_seq_ = 0;
  TpuHostFleet* tpu_hosts_ = nullptr;
  std::mutex tpu_hosts_mutex_;  // taken before mutex_: one host sync at a time, in world order
};

}  // namespace tputrain::emulator
