#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "iap_relay_connection.h"
#include "iap_relay_sessions.h"
#include "tls_stream.h"

// Moving a session's bytes over one upgraded (non-blocking) WebSocket: the instance's bytes out as
// DATA, the client's DATA to the instance, ACKs both ways, and the WebSocket's end.
namespace tputrain::emulator {

// Carries `session` (attached) from now: `to_client` is what to send first (CONNECT_SUCCESS_SID).
// Ends or detaches the session when the WebSocket ends.
void RunSession(TlsStream& tls, std::string& from_client, std::string to_client,
                const std::shared_ptr<IapRelaySession>& session, const IapRelayContext& context);
// The same after /v4/reconnect: RECONNECT_SUCCESS_ACK with what arrived from the client, then
// whatever the client had not received (`client_received` bytes of the instance's it acknowledges).
void RunResumedSession(TlsStream& tls, std::string& from_client, uint64_t client_received,
                       const std::shared_ptr<IapRelaySession>& session, const IapRelayContext& context);

// Closes a WebSocket that carries no session, waiting a moment for the client's close reply.
void CloseWebSocket(TlsStream& tls, std::string& from_client, int code, const std::string& reason);

}  // namespace tputrain::emulator
