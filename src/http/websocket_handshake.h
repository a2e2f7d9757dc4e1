#pragma once

#include <string>
#include <string_view>

#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"

// The RFC 6455 opening handshake as text, kept apart from the socket so it can be read alone.
namespace tputrain::http::internal {

// base64(SHA-1(key + the RFC's GUID)): what the server must echo in Sec-WebSocket-Accept.
std::string AcceptFor(std::string_view key);
std::string NewClientKey();  // base64 of 16 random bytes

std::string UpgradeRequest(const UrlParts& url, std::string_view key, std::string_view user_agent,
                           const Headers& headers);

struct HandshakeReply {
  int status = 0;
  Headers headers;
  size_t header_bytes = 0;  // length of the status line and headers, the blank line included
};
// std::nullopt-like: status 0 while `data` does not yet hold the whole header block.
core::Result<HandshakeReply> ParseHandshakeReply(std::string_view data);

}  // namespace tputrain::http::internal
