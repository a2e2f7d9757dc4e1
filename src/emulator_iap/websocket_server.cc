#include "websocket_server.h"

#include <openssl/sha.h>

#include <algorithm>
#include <cctype>

#include "tputrain/core/base64.h"

namespace tputrain::emulator {
namespace {

constexpr char kWebSocketGuid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

std::string Trim(std::string_view text) {
  size_t start = text.find_first_not_of(" \t");
  if (start == std::string_view::npos) return "";
  size_t end = text.find_last_not_of(" \t\r");
  return std::string(text.substr(start, end - start + 1));
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string PercentDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && HexValue(text[i + 1]) >= 0 && HexValue(text[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::map<std::string, std::string> ParseQuery(std::string_view query) {
  std::map<std::string, std::string> values;
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    size_t eq = pair.find('=');
    if (!pair.empty()) {
      values[PercentDecode(pair.substr(0, eq))] =
          eq == std::string_view::npos ? "" : PercentDecode(pair.substr(eq + 1));
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return values;
}

}  // namespace

bool UpgradeRequest::IsWebSocket() const {
  auto upgrade = headers.find("upgrade");
  return method == "GET" && upgrade != headers.end() && Lower(upgrade->second) == "websocket" &&
         headers.count("sec-websocket-key") > 0;
}

std::optional<UpgradeRequest> ParseUpgradeRequest(std::string_view head) {
  size_t line_end = head.find("\r\n");
  std::string_view request_line = head.substr(0, line_end);
  size_t first_space = request_line.find(' ');
  size_t second_space = request_line.find(' ', first_space == std::string_view::npos ? 0 : first_space + 1);
  if (first_space == std::string_view::npos || second_space == std::string_view::npos) return std::nullopt;
  if (request_line.substr(second_space + 1).rfind("HTTP/1.", 0) != 0) return std::nullopt;
  UpgradeRequest request;
  request.method = std::string(request_line.substr(0, first_space));
  std::string_view target = request_line.substr(first_space + 1, second_space - first_space - 1);
  size_t question = target.find('?');
  request.path = std::string(target.substr(0, question));
  if (question != std::string_view::npos) request.query = ParseQuery(target.substr(question + 1));
  while (line_end != std::string_view::npos) {
    head.remove_prefix(line_end + 2);
    line_end = head.find("\r\n");
    std::string_view line = head.substr(0, line_end);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    request.headers[Lower(std::string(line.substr(0, colon)))] = Trim(line.substr(colon + 1));
  }
  return request;
}

std::string WebSocketAcceptKey(std::string_view client_key) {
  std::string text = std::string(client_key) + kWebSocketGuid;
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  return core::EncodeBase64(std::string_view(reinterpret_cast<const char*>(digest), sizeof(digest)));
}

std::string EncodeServerFrame(uint8_t opcode, std::string_view payload) {
  std::string frame(1, static_cast<char>(0x80 | opcode));
  size_t length = payload.size();
  if (length < 126) {
    frame += static_cast<char>(length);
  } else if (length < 65536) {
    frame += static_cast<char>(126);
    for (int shift = 8; shift >= 0; shift -= 8) frame += static_cast<char>((length >> shift) & 0xFF);
  } else {
    frame += static_cast<char>(127);
    for (int shift = 56; shift >= 0; shift -= 8)
      frame += static_cast<char>((static_cast<uint64_t>(length) >> shift) & 0xFF);
  }
  frame.append(payload);
  return frame;
}

std::string EncodeCloseFrame(int code, std::string_view reason) {
  std::string payload = {static_cast<char>((code >> 8) & 0xFF), static_cast<char>(code & 0xFF)};
  payload.append(reason.substr(0, 123));  // a control frame's payload is at most 125 bytes
  return EncodeServerFrame(kWsClose, payload);
}

int CloseCode(std::string_view payload) {
  if (payload.size() < 2) return 1005;
  return (static_cast<uint8_t>(payload[0]) << 8) | static_cast<uint8_t>(payload[1]);
}

core::Result<std::optional<WebSocketFrame>> TakeClientFrame(std::string& buffer, size_t max_payload) {
  if (buffer.size() < 2) return std::optional<WebSocketFrame>();
  auto byte = [&](size_t i) { return static_cast<uint8_t>(buffer[i]); };
  if ((byte(0) & 0x70) != 0) return core::Fail(core::Error::Usage("WebSocket frame with reserved bits set"));
  if ((byte(1) & 0x80) == 0) return core::Fail(core::Error::Usage("WebSocket client frame not masked"));
  uint64_t length = byte(1) & 0x7F;
  size_t offset = 2;
  if (length >= 126) {
    size_t extra = length == 126 ? 2 : 8;
    if (buffer.size() < offset + extra) return std::optional<WebSocketFrame>();
    length = 0;
    for (size_t i = 0; i < extra; ++i) length = (length << 8) | byte(offset + i);
    offset += extra;
  }
  if (length > max_payload) return core::Fail(core::Error::Usage("WebSocket frame too long"));
  if (buffer.size() < offset + 4 + length) return std::optional<WebSocketFrame>();
  const size_t mask_at = offset;
  offset += 4;
  WebSocketFrame frame;
  frame.fin = (byte(0) & 0x80) != 0;
  frame.opcode = byte(0) & 0x0F;
  frame.payload = buffer.substr(offset, length);
  for (size_t i = 0; i < frame.payload.size(); ++i) frame.payload[i] ^= buffer[mask_at + i % 4];
  buffer.erase(0, offset + length);
  return std::optional<WebSocketFrame>(std::move(frame));
}

}  // namespace tputrain::emulator
