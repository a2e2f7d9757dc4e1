// workflow::Generate keeps no more of an answer than its caller needs: a streamed answer printed
// as it arrives runs in constant memory, and one taken whole is bounded.
#include <cstddef>
#include <string>

#include <catch2/catch.hpp>

#include "tputrain/core/clock.h"
#include "tputrain/serving/engine.h"
#include "tputrain/workflow/serve.h"

namespace tputrain::workflow {
namespace {

constexpr std::size_t kMiB = 1024 * 1024;
constexpr std::size_t kTokenBytes = kMiB / 4;  // within one streamed value's bound

// jetstream-http's stream: one {"text": ...} object per token, here `count` tokens of 256 KiB.
class LongStream final : public http::Transport {
 public:
  explicit LongStream(int count) : count_(count) {}
  core::Result<http::Response> Send(const http::Request&) override { return http::Response{500, {}, "{}"}; }
  core::Result<http::Response> Stream(const http::Request&, const http::ChunkHandler& on_chunk) override {
    const std::string token = R"({"text": ")" + std::string(kTokenBytes, 'a') + R"("})";
    for (int i = 0; i < count_; ++i) {
      if (!on_chunk(token)) break;
    }
    return http::Response{200, {}, ""};
  }

 private:
  int count_;
};

core::Result<GenerateOutcome> GenerateFrom(LongStream& transport,
                                           const std::function<void(std::string_view)>& on_text) {
  core::SystemClock clock;
  auto engine = serving::MakeEngine(serving::EngineKind::kJetStream);
  ServeEndpoint endpoint{transport, "http://127.0.0.1:1/", clock};
  serving::GenerateRequest request{"a long answer, please", 0, true};
  return Generate(endpoint, *engine, request, on_text);
}

TEST_CASE("serve generate --stream printed as it comes keeps none of the answer") {
  LongStream transport(320);
  std::size_t printed = 0;
  auto outcome = GenerateFrom(transport, [&](std::string_view text) { printed += text.size(); });
  INFO((outcome ? "" : outcome.error().message));
  REQUIRE(outcome);
  CHECK(printed == 80 * kMiB);
  CHECK(outcome->pieces == 320);
  CHECK(outcome->text.empty());
}

TEST_CASE("serve generate --stream taken whole (--format json) is bounded at 64 MiB, in one line") {
  LongStream transport(320);
  auto outcome = GenerateFrom(transport, nullptr);
  REQUIRE_FALSE(outcome);
  INFO(outcome.error().message);
  CHECK(outcome.error().kind == core::ErrorKind::kResourceExhausted);
  CHECK(outcome.error().message.find("longer than 64 MiB") != std::string::npos);
  CHECK(outcome.error().message.find('\n') == std::string::npos);
}

TEST_CASE("serve generate --stream taken whole keeps an answer within the bound") {
  LongStream transport(12);
  auto outcome = GenerateFrom(transport, nullptr);
  INFO((outcome ? "" : outcome.error().message));
  REQUIRE(outcome);
  CHECK(outcome->text == std::string(3 * kMiB, 'a'));
}

}  // namespace
}  // namespace tputrain::workflow
