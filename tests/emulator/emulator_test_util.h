#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "testing/fake_clock.h"
#include "tputrain/emulator/emulator.h"

namespace tputrain::emulator::testing {

struct Reply {
  int status = 0;
  nlohmann::json body;
  bool dropped = false;
};

// Drives an Emulator in-process, as gcloud would over HTTP.
class Driver {
 public:
  // Operations take config.op_latency (2 s unless set) of FakeClock time: they finish without
  // sleeping, when the test advances it.
  explicit Driver(EmulatorConfig config = {}) { emulator_ = Emulator::Create(std::move(config), clock_).value(); }

  Reply Send(const std::string& method, const std::string& path_and_query, const nlohmann::json& body = nullptr,
             bool with_token = true) {
    ApiRequest request;
    request.method = method;
    auto question = path_and_query.find('?');
    request.path = path_and_query.substr(0, question);
    if (question != std::string::npos) {
      std::string query = path_and_query.substr(question + 1);
      size_t start = 0;
      while (start <= query.size()) {
        auto amp = query.find('&', start);
        std::string pair = query.substr(start, amp == std::string::npos ? std::string::npos : amp - start);
        auto eq = pair.find('=');
        if (!pair.empty())
          request.query.emplace(pair.substr(0, eq), eq == std::string::npos ? "" : pair.substr(eq + 1));
        if (amp == std::string::npos) break;
        start = amp + 1;
      }
    }
    if (with_token) request.headers["authorization"] = "Bearer any-token";
    if (!body.is_null()) request.body = body.is_string() ? body.get<std::string>() : body.dump();
    ApiResponse response = emulator_->Handle(request);
    Reply reply{response.status, nullptr, response.drop_connection};
    if (!response.body.empty() && response.content_type == "application/json") {
      reply.body = nlohmann::json::parse(response.body);
    }
    return reply;
  }

  void Advance(std::chrono::milliseconds by) { clock_.Advance(by); }
  Emulator& emulator() { return *emulator_; }

 private:
  tputrain::testing::FakeClock clock_{std::chrono::system_clock::time_point{std::chrono::seconds(1'800'000'000)}};
  std::unique_ptr<Emulator> emulator_;
};

}  // namespace tputrain::emulator::testing
