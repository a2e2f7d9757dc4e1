// workflow::Generate keeps no more of an answer than its caller needs: a streamed answer printed
// as it arrives runs in constant memory, and one taken whole is bounded.
#include <cstddef>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tputrain/core/clock.h"
#include "tputrain/core/json.h"
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

// A clock the fake server moves: each streamed chunk arrives 100 ms after the one before.
class SteppedClock final : public core::Clock {
 public:
  TimePoint Now() override { return now_; }
  std::chrono::system_clock::time_point WallNow() override { return {}; }
  void Advance(std::chrono::milliseconds by) { now_ += by; }

 private:
  TimePoint now_{};
};

// vLLM's server: GET /v1/models lists the served model; a streamed completion sends one event per
// token, split across chunks where it falls, then the usage chunk and [DONE].
class VllmServer final : public http::Transport {
 public:
  explicit VllmServer(SteppedClock& clock) : clock_(clock) {}
  core::Result<http::Response> Send(const http::Request& request) override {
    sent.push_back(request);
    if (request.url.ends_with("v1/models")) {
      return http::Response{200, {}, R"({"object":"list","data":[{"id":"tiny","object":"model","parent":null}]})"};
    }
    return http::Response{200,
                          {},
                          R"({"choices":[{"index":0,"text":"a b c"}],)"
                          R"("usage":{"prompt_tokens":2,"completion_tokens":3,"total_tokens":5}})"};
  }
  core::Result<http::Response> Stream(const http::Request& request, const http::ChunkHandler& on_chunk) override {
    sent.push_back(request);
    if (core::ParseJson(request.body, "")->value("model", "") == "nope") {
      // As the curl transport returns a refusal: its body whole in the response, never streamed.
      return http::Response{
          404,
          {},
          R"({"error":{"message":"The model `nope` does not exist.","type":"NotFoundError","param":null,"code":404}})"};
    }
    for (const char* chunk :
         {"data: {\"choices\":[{\"index\":0,\"text\":\"a\"}]}\n\ndata: {\"choi",
          "ces\":[{\"index\":0,\"text\":\" b\"}]}\n\n", "data: {\"choices\":[{\"index\":0,\"text\":\" c\"}]}\n\n",
          "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":2,\"completion_tokens\":3,"
          "\"total_tokens\":5}}\n\ndata: [DONE]\n\n"}) {
      clock_.Advance(std::chrono::milliseconds(100));
      if (!on_chunk(chunk)) break;
      printed_at_chunk.push_back(printed);
    }
    return http::Response{200, {}, ""};
  }

  std::vector<http::Request> sent;
  std::string printed;                        // what the caller printed so far
  std::vector<std::string> printed_at_chunk;  // ... after each chunk

 private:
  SteppedClock& clock_;
};

TEST_CASE("serve generate --engine vllm: the served model asked first, tokens printed as their events end") {
  SteppedClock clock;
  VllmServer server(clock);
  auto engine = serving::MakeEngine(serving::EngineKind::kVllm);
  ServeEndpoint endpoint{server, "http://127.0.0.1:1/", clock};
  serving::GenerateRequest request{"Say a b c", 3, true};
  auto outcome = Generate(endpoint, *engine, request, [&](std::string_view text) { server.printed += text; });
  INFO((outcome ? "" : outcome.error().message));
  REQUIRE(outcome);
  REQUIRE(server.sent.size() == 2);
  CHECK(server.sent[0].url == "http://127.0.0.1:1/v1/models");
  CHECK(core::ParseJson(server.sent[1].body, "")->at("model") == "tiny");
  CHECK(outcome->model == "tiny");
  // The first token is printed with the chunk that ends its event, before the rest arrive.
  CHECK(server.printed_at_chunk == std::vector<std::string>{"a", "a b", "a b c", "a b c"});
  CHECK(outcome->time_to_first_token == std::chrono::milliseconds(100));
  CHECK(outcome->total == std::chrono::milliseconds(400));
  REQUIRE(outcome->usage);
  CHECK(outcome->usage->completion_tokens == 3);
  // Two tokens after the first, in the 300 ms after it.
  REQUIRE(outcome->tokens_per_second);
  CHECK(*outcome->tokens_per_second == Approx(2.0 / 0.3));

  // A model the user names is not looked up; a whole answer's rate is the server's count.
  server.sent.clear();
  serving::GenerateRequest named{"Say a b c", 3, false, "tiny"};
  auto whole = Generate(endpoint, *engine, named, nullptr);
  REQUIRE(whole);
  CHECK(server.sent.size() == 1);
  CHECK(whole->text == "a b c");
  CHECK(whole->usage->total_tokens == 5);
  CHECK_FALSE(whole->time_to_first_token);

  // A refused stream is one line in the server's words.
  serving::GenerateRequest unknown{"hi", 3, true, "nope"};
  auto refused = Generate(endpoint, *engine, unknown, nullptr);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message ==
        "the vLLM server refused the request: The model `nope` does not exist. (NotFoundError, HTTP 404)");
}

}  // namespace
}  // namespace tputrain::workflow
