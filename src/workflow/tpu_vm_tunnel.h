#pragma once

#include <functional>

#include "tputrain/core/cancel.h"
#include "tputrain/core/clock.h"
#include "tputrain/core/result.h"
#include "tputrain/core/runtime.h"
#include "tputrain/gcp/iap/tunnel_session.h"
#include "tputrain/http/credential.h"
#include "tputrain/http/websocket.h"

namespace tputrain::workflow {

struct TpuVmTunnelEnv : core::Runtime {
  http::WebSocketConnector& websocket;  // with the Google credential on each upgrade
  http::Credential* credential;         // invalidated when the relay asks for a new token
  std::function<void(int local_port)> on_listening;
  std::function<void(const core::Error&)> on_connection_error;  // from connection threads
};

struct TpuVmTunnelRequest {
  gcp::iap::TunnelTarget target;
  int local_port = 0;  // 0: a free one, given to on_listening
  std::string relay_url = gcp::iap::kDefaultTunnelUrl;
};

// Listens on 127.0.0.1:local_port and carries every connection to the target through IAP until
// the wait is cancelled (Ctrl-C); then ends every connection and returns success.
core::Status KeepTpuVmTunnel(const TpuVmTunnelEnv& env, const TpuVmTunnelRequest& request);

}  // namespace tputrain::workflow
