#include "operations.h"
#include "tputrain/core/number.h"
#include "tputrain/emulator/emulator.h"
#include "tputrain/emulator/tpu_metadata.h"

// The Emulator's side of --tpu-hosts netns: keeping the hosts in step with the nodes, their
// metadata server, and the admin paths that show them.
namespace tputrain::emulator {

using nlohmann::json;

void Emulator::AttachTpuHosts(TpuHostFleet* fleet) {
  std::lock_guard lock(tpu_hosts_mutex_);
  tpu_hosts_ = fleet;
}

void Emulator::SyncTpuHosts() {
  std::lock_guard hosts_lock(tpu_hosts_mutex_);
  if (tpu_hosts_ == nullptr) return;
  // The snapshot is taken under the hosts' lock, so no older snapshot can boot a node again
  // after a newer one ended it.
  std::vector<TpuHostSpec> wanted;
  {
    std::lock_guard lock(mutex_);
    if (Advance(world_, NowMs(), config_)) SaveLocked();
    wanted = WantedTpuHosts(world_);
  }
  tpu_hosts_->Reconcile(wanted);
  // The guest agent reports once the host is up, so a reader of `hostname` finds a booted host.
  std::lock_guard lock(mutex_);
  if (ReportBootedHostnames(world_, wanted)) SaveLocked();
}

ApiResponse Emulator::HandleMetadata(const ApiRequest& request, const std::string& source_address) {
  std::lock_guard lock(mutex_);
  if (Advance(world_, NowMs(), config_)) SaveLocked();
  bool mutated = false;
  ApiResponse response = AnswerMetadata(world_, request, source_address, mutated);
  if (mutated) SaveLocked();
  return response;
}

ApiResponse Emulator::HandleTpuHostsAdmin(const ApiRequest& request) {
  std::lock_guard hosts_lock(tpu_hosts_mutex_);
  if (request.method == "GET" && request.path == "/_emulator/tpu-hosts") {
    return JsonReply({{"hosts", tpu_hosts_ ? tpu_hosts_->Describe() : json::array()}});
  }
  if (request.method == "GET" && request.path == "/_emulator/tpu-hosts/log" && tpu_hosts_ != nullptr) {
    auto worker = core::ParseWhole("worker", request.Param("worker").value_or("0"), 0, 1 << 20);
    if (!worker) return Aip193Error(core::ErrorKind::kInvalidArgument, worker.error().message);
    auto log = tpu_hosts_->StartupLog(request.Param("node").value_or(""), static_cast<int>(*worker));
    if (!log) return Aip193Error(log.error().kind, log.error().message);
    ApiResponse response;
    response.body = std::move(*log);
    response.content_type = "text/plain; charset=utf-8";
    return response;
  }
  return Aip193Error(core::ErrorKind::kNotFound,
                     "Unknown emulator admin path " + request.path +
                         " (GET /_emulator/tpu-hosts, GET /_emulator/tpu-hosts/log?node=NAME&worker=N; hosts "
                         "boot with --tpu-hosts netns)");
}

}  // namespace tputrain::emulator
