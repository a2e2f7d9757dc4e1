#include <catch2/catch.hpp>
#include <variant>

#include "iap_relay_protocol.h"
#include "tputrain/emulator/tpu_metadata.h"
#include "websocket_server.h"

namespace tputrain::emulator {
namespace {

using nlohmann::json;

// A client frame as RFC 6455 has clients send them: masked.
std::string ClientFrame(uint8_t opcode, const std::string& payload, bool fin = true) {
  std::string frame(1, static_cast<char>((fin ? 0x80 : 0) | opcode));
  const char mask[4] = {0x12, 0x34, 0x56, 0x78};
  if (payload.size() < 126) {
    frame += static_cast<char>(0x80 | payload.size());
  } else {
    frame += static_cast<char>(0x80 | 126);
    frame += static_cast<char>(payload.size() >> 8);
    frame += static_cast<char>(payload.size() & 0xFF);
  }
  frame.append(mask, 4);
  for (size_t i = 0; i < payload.size(); ++i) frame += static_cast<char>(payload[i] ^ mask[i % 4]);
  return frame;
}

UpgradeRequest Upgrade(const std::string& target, const std::string& token = "Bearer t") {
  std::string head = "GET " + target +
                     " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nOrigin: bot:iap-tunneler\r\n"
                     "Sec-WebSocket-Protocol: relay.tunnel.cloudproxy.app\r\nAuthorization: " +
                     token;
  return *ParseUpgradeRequest(head);
}

TEST_CASE("websocket server framing: RFC 6455's accept key, masked client frames in pieces, unmasked replies") {
  CHECK(WebSocketAcceptKey("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");  // RFC 6455 §1.3
  std::string payload(300, 'x');
  std::string wire = ClientFrame(kWsBinary, payload) + ClientFrame(kWsClose, "\x03\xe8");
  std::string buffer = wire.substr(0, 100);
  CHECK_FALSE(TakeClientFrame(buffer, 1 << 20)->has_value());
  buffer += wire.substr(100);
  auto first = TakeClientFrame(buffer, 1 << 20);
  REQUIRE(first->has_value());
  CHECK((*first)->payload == payload);
  auto second = TakeClientFrame(buffer, 1 << 20);
  CHECK(CloseCode((*second)->payload) == 1000);
  CHECK(buffer.empty());
  std::string unmasked = "\x82\x01x";
  CHECK_FALSE(TakeClientFrame(unmasked, 1 << 20).has_value());
  std::string too_long = ClientFrame(kWsBinary, payload);
  CHECK_FALSE(TakeClientFrame(too_long, 100).has_value());
  CHECK(EncodeServerFrame(kWsBinary, std::string(200, 'y')).substr(0, 4) == std::string("\x82\x7e\x00\xc8", 4));
  CHECK(EncodeCloseFrame(4003, "failed") == std::string("\x88\x08\x0f\xa3") + "failed");
}

TEST_CASE("the relay's upgrade: /v4/connect and /v4/reconnect with a token, IAP's Origin and subprotocol") {
  auto connect = CheckIapUpgrade(
      Upgrade("/v4/connect?project=p&port=8265&newWebsocket=True&zone=us-east5-a&instance=t1v-n-1-w-0&interface=nic0"));
  REQUIRE(std::holds_alternative<IapUpgrade>(connect));
  CHECK(std::get<IapUpgrade>(connect).instance == "t1v-n-1-w-0");
  CHECK(std::get<IapUpgrade>(connect).port == 8265);
  auto reconnect = CheckIapUpgrade(Upgrade("/v4/reconnect?sid=abc&ack=70000&newWebsocket=True&zone=z"));
  REQUIRE(std::holds_alternative<IapUpgrade>(reconnect));
  CHECK(std::get<IapUpgrade>(reconnect).ack == 70000);

  CHECK(std::get<HttpRefusal>(CheckIapUpgrade(Upgrade("/v4/connect?project=p&port=1&zone=z&instance=i", "Basic x")))
            .status == 401);
  CHECK(std::get<HttpRefusal>(CheckIapUpgrade(Upgrade("/v4/connect?project=p&zone=z&instance=i"))).status == 400);
  CHECK(std::get<HttpRefusal>(CheckIapUpgrade(Upgrade("/v3/connect"))).status == 404);
  auto no_origin = Upgrade("/v4/connect?project=p&port=1&zone=z&instance=i");
  no_origin.headers.erase("origin");
  CHECK(std::get<HttpRefusal>(CheckIapUpgrade(no_origin)).status == 400);
}

TEST_CASE("tunnel frames: CONNECT_SUCCESS_SID, DATA, ACK and RECONNECT_SUCCESS_ACK on the wire") {
  CHECK(EncodeIapSid("ab") == std::string("\x00\x01\x00\x00\x00\x02"
                                          "ab",
                                          8));
  CHECK(EncodeIapData("xyz") == std::string("\x00\x04\x00\x00\x00\x03xyz", 9));
  CHECK(EncodeIapCount(IapTag::kAck, 65536) == std::string("\x00\x07\x00\x00\x00\x00\x00\x01\x00\x00", 10));
  auto data = DecodeIapClientFrame(EncodeIapData("hello"));
  REQUIRE(data.has_value());
  CHECK(data->data == "hello");
  auto ack = DecodeIapClientFrame(EncodeIapCount(IapTag::kAck, 12345));
  CHECK(ack->ack == 12345);
  CHECK_FALSE(DecodeIapClientFrame(EncodeIapData(std::string(kIapMaxData + 1, 'x'))).has_value());
  CHECK_FALSE(DecodeIapClientFrame(EncodeIapSid("x")).has_value());
}

TEST_CASE("FindTpuHostByInstance: a READY node's worker by its instance name, in its project and zone only") {
  json world = {
      {"tpuNodes",
       {{"projects/p/locations/z/nodes/n",
         {{"state", "READY"}, {"networkEndpoints", {{{"ipAddress", "10.213.1.1"}}, {{"ipAddress", "10.213.1.2"}}}}}}}}};
  std::string name = TpuHostname("projects/p/locations/z/nodes/n", 1);
  CHECK(FindTpuHostByInstance(world, "p", "z", name) == "10.213.1.2");
  CHECK_FALSE(FindTpuHostByInstance(world, "p", "other-zone", name));
  CHECK_FALSE(FindTpuHostByInstance(world, "q", "z", name));
  world["tpuNodes"]["projects/p/locations/z/nodes/n"]["state"] = "DELETING";
  CHECK_FALSE(FindTpuHostByInstance(world, "p", "z", name));
}

}  // namespace
}  // namespace tputrain::emulator
