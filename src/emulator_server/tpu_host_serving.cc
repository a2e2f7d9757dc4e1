#include "tpu_host_serving.h"

#include <httplib.h>

#include <algorithm>

#include "httplib_request.h"
#include "tputrain/emulator/tpu_host_network.h"
#include "tputrain/emulator/tpu_metadata.h"
#include "tputrain/emulator_hosts/netns_tpu_host_fleet.h"
#include "tputrain/emulator_iap/iap_relay.h"

namespace tputrain::emulator {
namespace {

// Beside the fleet's lock and hosts (netns_tpu_host_fleet.cc): root's, one emulator at a time.
const char kRelayCaPath[] = "/run/tputrain-emulator/iap-relay-ca.pem";

}  // namespace

core::Result<std::unique_ptr<TpuHostServing>> TpuHostServing::Start(Emulator& emulator, const EmulatorConfig& config) {
  auto fleet = CreateNetnsTpuHostFleet(config.host_path);
  if (!fleet) return core::Fail(fleet.error());
  std::unique_ptr<TpuHostServing> serving(new TpuHostServing(emulator, std::move(*fleet)));
  auto& server = *serving->metadata_server_;
  RouteBounded(server, [&emulator](ApiRequest api, const httplib::Request& request, httplib::Response& response) {
    ApiResponse reply = emulator.HandleMetadata(api, request.remote_addr);
    response.status = reply.status;
    for (const auto& [name, value] : reply.headers) response.set_header(name, value);
    response.set_content(reply.body, reply.content_type.c_str());
  });
  ListenAlone(server);
  if (!server.bind_to_port(kTpuHostBridgeAddress, kMetadataServerPort)) {
    return core::Fail(core::Error::Internal(std::string("--tpu-hosts netns: cannot serve metadata on ") +
                                            kTpuHostBridgeAddress + ":" + std::to_string(kMetadataServerPort)));
  }
  auto relay = IapRelay::Start(
      [&emulator](const IapInstance& target) {
        return FindTpuHostByInstance(emulator.State(), target.project, target.zone, target.instance);
      },
      kRelayCaPath);
  if (!relay) return core::Fail(relay.error());
  serving->relay_ = std::move(*relay);
  serving->metadata_listener_ = std::thread([&server] { server.listen_after_bind(); });
  emulator.AttachTpuHosts(serving->fleet_.get());
  serving->ticker_ = std::thread([raw = serving.get()] {
    // Operations advance lazily, on requests; this makes a READY node boot (and a deleted one end)
    // within half a second even when nobody polls.
    while (!raw->stopping_) {
      raw->emulator_.SyncTpuHosts();
      for (int i = 0; i < 5 && !raw->stopping_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  return serving;
}

TpuHostServing::TpuHostServing(Emulator& emulator, std::unique_ptr<TpuHostFleet> fleet)
    : emulator_(emulator), fleet_(std::move(fleet)), metadata_server_(std::make_unique<httplib::Server>()) {}

TpuHostServing::~TpuHostServing() {
  stopping_ = true;
  if (ticker_.joinable()) ticker_.join();
  metadata_server_->stop();
  if (metadata_listener_.joinable()) metadata_listener_.join();
  relay_.reset();                     // ends every tunnel
  emulator_.AttachTpuHosts(nullptr);  // waits out a sync in flight
  fleet_.reset();                     // ends every host, removes the network
}

std::vector<std::string> TpuHostServing::ExportLines() const {
  return {std::string("export TPUTRAIN_EMULATOR_METADATA_HOST=") + kTpuHostBridgeAddress,
          "export TPUTRAIN_EMULATOR_TPU_HOST_NETWORK=10.213.0.0/" + std::to_string(kTpuHostPrefixLength),
          "export TPUTRAIN_IAP_TUNNEL_URL=" + relay_->url(),
          "export CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE=" + relay_->ca_path()};
}

size_t TpuHostServing::RequestReauthentication() { return relay_->RequestReauthentication(); }

}  // namespace tputrain::emulator
