#include "websocket_handshake.h"

#include <openssl/sha.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <random>

#include "tputrain/core/base64.h"

namespace tputrain::http::internal {
namespace {

std::string Base64(const unsigned char* data, size_t length) {
  return core::EncodeBase64(std::string_view(reinterpret_cast<const char*>(data), length));
}

std::string Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return std::string(text);
}

}  // namespace

std::string AcceptFor(std::string_view key) {
  std::string input = std::string(key) + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  std::array<unsigned char, SHA_DIGEST_LENGTH> digest{};
  SHA1(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest.data());
  return Base64(digest.data(), digest.size());
}

std::string NewClientKey() {
  std::random_device random;
  std::array<unsigned char, 16> bytes{};
  for (auto& byte : bytes) byte = static_cast<unsigned char>(random());
  return Base64(bytes.data(), bytes.size());
}

std::string UpgradeRequest(const UrlParts& url, std::string_view key, std::string_view user_agent,
                           const Headers& headers) {
  std::string host = url.host;
  if (url.port != 0) host += ":" + std::to_string(url.port);
  std::string request = "GET " + url.path_and_query + " HTTP/1.1\r\nHost: " + host +
                        "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                        "Sec-WebSocket-Key: " +
                        std::string(key) + "\r\nUser-Agent: " + std::string(user_agent) + "\r\n";
  for (const auto& [name, value] : headers) request += name + ": " + value + "\r\n";
  return request + "\r\n";
}

core::Result<HandshakeReply> ParseHandshakeReply(std::string_view data) {
  HandshakeReply reply;
  auto end = data.find("\r\n\r\n");
  if (end == std::string_view::npos) return reply;
  reply.header_bytes = end + 4;
  auto block = data.substr(0, end);
  auto line_end = block.find("\r\n");
  auto status_line = block.substr(0, line_end);
  auto space = status_line.find(' ');
  if (!status_line.starts_with("HTTP/1.") || space == std::string_view::npos || status_line.size() < space + 4) {
    return core::Fail(core::Error::Make(core::ErrorKind::kUnavailable,
                                        "WebSocket upgrade: not an HTTP reply: " + std::string(status_line)));
  }
  auto code = status_line.substr(space + 1, 3);
  if (!std::all_of(code.begin(), code.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    return core::Fail(core::Error::Make(core::ErrorKind::kUnavailable, "WebSocket upgrade: bad status line"));
  }
  reply.status = std::stoi(std::string(code));
  while (line_end != std::string_view::npos) {
    block = block.substr(line_end + 2);
    line_end = block.find("\r\n");
    auto line = block.substr(0, line_end);
    if (auto colon = line.find(':'); colon != std::string_view::npos) {
      reply.headers.emplace_back(Trim(line.substr(0, colon)), Trim(line.substr(colon + 1)));
    }
  }
  return reply;
}

}  // namespace tputrain::http::internal
