#include "iap_relay_protocol.h"

#include <variant>
#include <vector>

#include "tputrain/core/number.h"

namespace tputrain::emulator {
namespace {

std::string BigEndian(uint64_t value, int bytes) {
  std::string out(bytes, '\0');
  for (int i = bytes - 1; i >= 0; --i, value >>= 8) out[i] = static_cast<char>(value & 0xFF);
  return out;
}

uint64_t ReadBigEndian(std::string_view bytes) {
  uint64_t value = 0;
  for (char c : bytes) value = (value << 8) | static_cast<uint8_t>(c);
  return value;
}

std::string Tag(IapTag tag) { return BigEndian(static_cast<uint16_t>(tag), 2); }

bool OffersSubprotocol(const std::string& offered) {
  size_t start = 0;
  while (start <= offered.size()) {
    size_t comma = offered.find(',', start);
    std::string item = offered.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (item == kIapSubprotocol) return true;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return false;
}

}  // namespace

std::variant<IapUpgrade, HttpRefusal> CheckIapUpgrade(const UpgradeRequest& request) {
  auto header = [&](const std::string& name) {
    auto found = request.headers.find(name);
    return found == request.headers.end() ? std::string() : found->second;
  };
  auto param = [&](const std::string& name) {
    auto found = request.query.find(name);
    return found == request.query.end() ? std::string() : found->second;
  };
  const bool connect = request.path == "/v4/connect";
  if (!request.IsWebSocket() || (!connect && request.path != "/v4/reconnect")) {
    return HttpRefusal{404, "Not Found", "not an IAP tunnel endpoint: " + request.method + " " + request.path + "\n"};
  }
  std::string token = header("authorization");
  if (token.rfind("Bearer ", 0) != 0 || token.size() == 7) {
    return HttpRefusal{401, "Unauthorized", "IAP tunnel: an OAuth bearer token is required\n"};
  }
  if (header("origin") != kIapOrigin || !OffersSubprotocol(header("sec-websocket-protocol"))) {
    return HttpRefusal{
        400, "Bad Request",
        std::string("IAP tunnel: expected Origin ") + kIapOrigin + " and subprotocol " + kIapSubprotocol + "\n"};
  }
  IapUpgrade upgrade;
  upgrade.endpoint = connect ? IapEndpoint::kConnect : IapEndpoint::kReconnect;
  upgrade.zone = param("zone");
  std::string missing;
  static const std::vector<std::string> kConnectParams = {"project", "zone", "instance", "port"};
  static const std::vector<std::string> kReconnectParams = {"sid", "ack", "zone"};
  for (const auto& name : connect ? kConnectParams : kReconnectParams) {
    if (param(name).empty()) missing += std::string(missing.empty() ? "" : ", ") + name;
  }
  if (!missing.empty())
    return HttpRefusal{400, "Bad Request", "IAP tunnel: missing query parameters " + missing + "\n"};
  if (connect) {
    auto port = core::ParseWhole("port", param("port"), 1, 65535);
    if (!port) return HttpRefusal{400, "Bad Request", "IAP tunnel: port: expected 1 to 65535\n"};
    upgrade.port = static_cast<int>(*port);
    upgrade.project = param("project");
    upgrade.instance = param("instance");
    upgrade.network_interface = param("interface").empty() ? "nic0" : param("interface");
  } else {
    auto ack = core::ParseWhole("ack", param("ack"), 0, INT64_MAX);
    if (!ack) return HttpRefusal{400, "Bad Request", "IAP tunnel: ack: expected a byte count\n"};
    upgrade.ack = static_cast<uint64_t>(*ack);
    upgrade.sid = param("sid");
  }
  return upgrade;
}

std::string EncodeIapSid(std::string_view sid) {
  return Tag(IapTag::kConnectSuccessSid) + BigEndian(sid.size(), 4) + std::string(sid);
}

std::string EncodeIapData(std::string_view bytes) {
  return Tag(IapTag::kData) + BigEndian(bytes.size(), 4) + std::string(bytes);
}

std::string EncodeIapCount(IapTag tag, uint64_t count) { return Tag(tag) + BigEndian(count, 8); }

core::Result<IapClientFrame> DecodeIapClientFrame(std::string_view payload) {
  if (payload.size() < 2) return core::Fail(core::Error::Usage("IAP frame shorter than its tag"));
  IapClientFrame frame;
  uint64_t tag = ReadBigEndian(payload.substr(0, 2));
  if (tag == static_cast<uint16_t>(IapTag::kData)) {
    if (payload.size() < 6) return core::Fail(core::Error::Usage("IAP DATA frame without its length"));
    uint64_t length = ReadBigEndian(payload.substr(2, 4));
    if (length > kIapMaxData || length != payload.size() - 6) {
      return core::Fail(core::Error::Usage("IAP DATA frame of " + std::to_string(payload.size() - 6) +
                                           " bytes declares " + std::to_string(length) + " (at most 16384)"));
    }
    frame.tag = IapTag::kData;
    frame.data = std::string(payload.substr(6));
    return frame;
  }
  if (tag == static_cast<uint16_t>(IapTag::kAck)) {
    if (payload.size() != 10) return core::Fail(core::Error::Usage("IAP ACK frame is not 10 bytes"));
    frame.tag = IapTag::kAck;
    frame.ack = ReadBigEndian(payload.substr(2, 8));
    return frame;
  }
  return core::Fail(core::Error::Usage("IAP frame with tag " + std::to_string(tag) + " from the client"));
}

}  // namespace tputrain::emulator
