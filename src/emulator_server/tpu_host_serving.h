#pragma once

#include <atomic>
#include <memory>
#include <ostream>
#include <thread>

#include "tputrain/core/result.h"
#include "tputrain/emulator/emulator.h"

namespace httplib {
class Server;
}

namespace tputrain::emulator {

class IapRelay;

// Everything --tpu-hosts netns adds to a running emulator: the hosts, their metadata server on
// the bridge's address, a tick that boots and ends hosts when no request comes, and the IAP relay
// that reaches the hosts' ports. Destruction ends every host and removes the network.
class TpuHostServing {
 public:
  static core::Result<std::unique_ptr<TpuHostServing>> Start(Emulator& emulator, const EmulatorConfig& config);
  ~TpuHostServing();

  // `export` lines for what later steps need: the metadata server, the hosts' network, and the
  // IAP relay's URL and CA (the variables tputrain and gcloud both read).
  std::vector<std::string> ExportLines() const;
  // The relay closes every tunnel's WebSocket with 4004 (POST /_emulator/iap-relay/reauthenticate).
  size_t RequestReauthentication();

 private:
  TpuHostServing(Emulator& emulator, std::unique_ptr<TpuHostFleet> fleet);

  Emulator& emulator_;
  std::unique_ptr<TpuHostFleet> fleet_;
  std::unique_ptr<IapRelay> relay_;
  std::unique_ptr<httplib::Server> metadata_server_;
  std::thread metadata_listener_;
  std::atomic<bool> stopping_{false};
  std::thread ticker_;
};

}  // namespace tputrain::emulator
