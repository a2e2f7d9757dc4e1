// A model's answer is its text even when a byte of it is not UTF-8 (a token cut inside a
// character, a server that passes bytes through): every engine reads such a byte as U+FFFD,
// whole answers and streamed tokens alike, instead of reporting an answer "without a text".
#include <catch2/catch.hpp>

#include "tputrain/serving/engine.h"

namespace tputrain::serving {
namespace {

http::Response Reply(std::string body) {
  http::Response response;
  response.status = 200;
  response.body = std::move(body);
  return response;
}

const std::string kRead = "caf\xef\xbf\xbd!";  // "caf\xe9!" as read

TEST_CASE("every engine's answer with a byte that is not UTF-8 is its text, the byte as U+FFFD") {
  auto jetstream = MakeEngine(EngineKind::kJetStream);
  auto whole = jetstream->ParseGenerated(Reply("{\"response\": \"caf\xe9!\"}"));
  INFO((whole ? "" : whole.error().message));
  REQUIRE(whole);
  CHECK(*whole == kRead);
  auto tokens = jetstream->NewStreamDecoder()->Feed("{\"text\": \"caf\xe9!\"}");
  REQUIRE(tokens);
  CHECK(*tokens == std::vector<std::string>{kRead});

  auto saxml = MakeEngine(EngineKind::kSaxml);
  auto best = saxml->ParseGenerated(Reply("[[\"caf\xe9!\", -0.5]]"));
  REQUIRE(best);
  CHECK(*best == kRead);

  auto vllm = MakeEngine(EngineKind::kVllm);
  auto completion = vllm->ParseGenerated(
      Reply("{\"id\":\"c\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\"caf\xe9!\","
            "\"finish_reason\":\"stop\"}]}"));
  INFO((completion ? "" : completion.error().message));
  REQUIRE(completion);
  CHECK(*completion == kRead);
  auto decoder = vllm->NewStreamDecoder();
  auto streamed = decoder->Feed(
      "data: {\"id\":\"c\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\"caf\xe9!\"}]}\n\n"
      "data: [DONE]\n\n");
  INFO((streamed ? "" : streamed.error().message));
  REQUIRE(streamed);
  CHECK(*streamed == std::vector<std::string>{kRead});
}

}  // namespace
}  // namespace tputrain::serving
