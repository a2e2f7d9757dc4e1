// vLLM's OpenAI-compatible API as vLLM 0.32 answers it (../shared/notes/vllm.md §2), and where
// the llm-d simulator the integration tests use answers differently (§3.2): the client reads
// vLLM's shapes first.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tputrain/serving/engine.h"
#include "tputrain/serving/vllm.h"

namespace tputrain::serving {
namespace {

using Pieces = std::vector<std::string>;

http::Response Reply(int status, std::string body) {
  http::Response response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

// The pieces of a whole stream, fed in one chunk.
Pieces Decode(const Engine& engine, const std::string& body, std::optional<TokenUsage>* usage = nullptr) {
  auto decoder = engine.NewStreamDecoder();
  auto pieces = decoder->Feed(body);
  REQUIRE(pieces);
  auto rest = decoder->Finish();
  REQUIRE(rest);
  pieces->insert(pieces->end(), rest->begin(), rest->end());
  if (usage) *usage = decoder->usage();
  Pieces texts;
  for (auto& piece : *pieces) {
    if (!piece.empty()) texts.push_back(piece);
  }
  return texts;
}

TEST_CASE("vLLM's requests: /v1/completions with a prompt, /v1/chat/completions with messages") {
  auto engine = MakeEngine(EngineKind::kVllm);
  CHECK(engine->DefaultService() == "vllm-service");
  CHECK(engine->DefaultPort() == 8000);
  CHECK(engine->CanStream());
  CHECK(engine->Chats());
  const std::string base = "https://k/api/v1/namespaces/default/services/vllm-service:8000/proxy/";

  GenerateRequest completion{"What is a TPU?", 20, false, "meta-llama/Llama-3.1-8B"};
  completion.temperature = 0.0;
  auto request = engine->BuildGenerate(base, completion);
  CHECK(request.method == "POST");
  CHECK(request.url == base + "v1/completions");
  CHECK_FALSE(request.idempotent);
  CHECK(nlohmann::json::parse(request.body) == nlohmann::json{{"model", "meta-llama/Llama-3.1-8B"},
                                                              {"prompt", "What is a TPU?"},
                                                              {"max_tokens", 20},
                                                              {"temperature", 0.0}});

  GenerateRequest chat{"", 8, true, "m"};
  chat.messages = {{"system", "Be brief."}, {"user", "Hi"}};
  auto streamed = engine->BuildGenerate(base, chat);
  CHECK(streamed.url == base + "v1/chat/completions");
  // max_tokens is deprecated for chat; the usage chunk is asked for, for tokens/s.
  CHECK(nlohmann::json::parse(streamed.body) ==
        nlohmann::json{
            {"model", "m"},
            {"messages", {{{"role", "system"}, {"content", "Be brief."}}, {{"role", "user"}, {"content", "Hi"}}}},
            {"max_completion_tokens", 8},
            {"stream", true},
            {"stream_options", {{"include_usage", true}}}});

  CHECK(engine->BuildHealthCheck(base).url == base + "health");
  CHECK(engine->BuildListModels(base)->url == base + "v1/models");
  // vLLM's /health: 200 with an empty body once serving, 503 when the engine died.
  CHECK(engine->IsHealthy(Reply(200, "")));
  CHECK_FALSE(engine->IsHealthy(Reply(503, "")));
}

TEST_CASE("vLLM's /v1/models: the base model, not a LoRA adapter listed before it") {
  auto engine = MakeEngine(EngineKind::kVllm);
  // vLLM 0.32 (with permission[]), as the simulator (without).
  CHECK(*engine->ParseServedModel(
            Reply(200, R"({"object":"list","data":[{"id":"meta-llama/Llama-3.1-8B","object":"model","created":1,
            "owned_by":"vllm","root":"meta-llama/Llama-3.1-8B","parent":null,"max_model_len":4096,
            "permission":[{"id":"modelperm-1","object":"model_permission"}]}]})")) == "meta-llama/Llama-3.1-8B");
  CHECK(*engine->ParseServedModel(Reply(200, R"({"object":"list","data":[
            {"id":"sql-lora","object":"model","root":"/adapters/sql","parent":"base"},
            {"id":"base","object":"model","root":"base","parent":null}]})")) == "base");
  auto none = engine->ParseServedModel(Reply(200, R"({"object":"list","data":[]})"));
  REQUIRE_FALSE(none);
  CHECK(none.error().message == "the vLLM server serves no model (GET /v1/models listed none)");
  CHECK_FALSE(engine->ParseServedModel(Reply(200, "[]")));
}

TEST_CASE("vLLM's whole answers: the choice's text or message, and the usage") {
  auto engine = MakeEngine(EngineKind::kVllm);
  const auto completion = Reply(200, R"({"id":"cmpl-9","object":"text_completion","created":1,"model":"m",
      "choices":[{"index":0,"text":" Tensor units","logprobs":null,"finish_reason":"length","stop_reason":null}],
      "usage":{"prompt_tokens":5,"total_tokens":7,"completion_tokens":2,"prompt_tokens_details":null}})");
  CHECK(*engine->ParseGenerated(completion) == " Tensor units");
  auto usage = engine->UsageOf(completion);
  REQUIRE(usage);
  CHECK(usage->prompt_tokens == 5);
  CHECK(usage->completion_tokens == 2);
  CHECK(usage->total_tokens == 7);

  const auto chat = Reply(200, R"({"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,
      "message":{"role":"assistant","content":"Hello!","reasoning":null,"tool_calls":[]},"finish_reason":"stop"}],
      "usage":{"prompt_tokens":9,"total_tokens":11,"completion_tokens":2}})");
  CHECK(*engine->ParseGenerated(chat) == "Hello!");
  // A tool call answers no content.
  CHECK(*engine->ParseGenerated(Reply(200, R"({"choices":[{"message":{"role":"assistant","content":null}}]})")) == "");
  CHECK_FALSE(engine->ParseGenerated(Reply(200, R"({"choices":[]})")));
  CHECK_FALSE(engine->ParseGenerated(Reply(200, "not json")));
  CHECK_FALSE(engine->UsageOf(Reply(200, R"({"choices":[],"usage":null})")));
}

TEST_CASE("vLLM's completion stream: text chunks, the usage chunk, [DONE]") {
  auto engine = MakeEngine(EngineKind::kVllm);
  // vLLM leaves `usage` out of its chunks (exclude_unset) and sends it in a last `choices: []` one.
  const std::string vllm =
      "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\","
      "\"choices\":[{\"index\":0,\"text\":\" Hello\",\"logprobs\":null,\"finish_reason\":null}]}\n\n"
      "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\","
      "\"choices\":[{\"index\":0,\"text\":\" world\",\"logprobs\":null,\"finish_reason\":\"length\","
      "\"stop_reason\":null}]}\n\n"
      "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[],"
      "\"usage\":{\"prompt_tokens\":3,\"total_tokens\":5,\"completion_tokens\":2}}\n\n"
      "data: [DONE]\n\n";
  std::optional<TokenUsage> usage;
  CHECK(Decode(*engine, vllm, &usage) == Pieces{" Hello", " world"});
  REQUIRE(usage);
  CHECK(usage->completion_tokens == 2);

  // The simulator puts "usage": null in every chunk: it is no usage, and not an error.
  const std::string simulator =
      "data: {\"id\":\"cmpl-x-0\",\"created\":1,\"model\":\"m\",\"usage\":null,\"object\":\"text_completion\","
      "\"choices\":[{\"index\":0,\"finish_reason\":null,\"text\":\"Hi\"}]}\n\n"
      "data: {\"id\":\"cmpl-x-0\",\"created\":1,\"model\":\"m\",\"usage\":{\"prompt_tokens\":1,"
      "\"completion_tokens\":1,\"total_tokens\":2},\"object\":\"text_completion\",\"choices\":[]}\n\n"
      "data: [DONE]\n\n";
  CHECK(Decode(*engine, simulator, &usage) == Pieces{"Hi"});
  REQUIRE(usage);
  CHECK(usage->total_tokens == 2);

  // Each token comes out with the chunk that ends its event, not at the end of the answer.
  auto decoder = engine->NewStreamDecoder();
  CHECK(*decoder->Feed("data: {\"choices\":[{\"index\":0,\"text\":\"a\"}]}\n") == Pieces{});
  CHECK(*decoder->Feed("\ndata: {\"choices\":[{\"index\":0,\"te") == Pieces{"a"});
}

TEST_CASE("vLLM's chat stream: the role-only first delta, content deltas, the finish") {
  auto engine = MakeEngine(EngineKind::kVllm);
  const std::string vllm =
      "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
      "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,"
      "\"finish_reason\":null}]}\n\n"
      "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
      "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n"
      "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
      "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"logprobs\":null,\"finish_reason\":\"stop\","
      "\"stop_reason\":null}]}\n\n"
      "data: [DONE]\n\n";
  CHECK(Decode(*engine, vllm) == Pieces{"Hel", "lo"});
  // The simulator's first delta has the role only.
  CHECK(Decode(*engine,
               "data: {\"usage\":null,\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n"
               "data: {\"usage\":null,\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n"
               "data: [DONE]\n\n") == Pieces{"Hi"});
}

TEST_CASE("vLLM's streams that go wrong: an error event after the 200, a cut, a foreign chunk") {
  auto engine = MakeEngine(EngineKind::kVllm);
  auto decoder = engine->NewStreamDecoder();
  auto failed = decoder->Feed(
      "data: {\"choices\":[{\"index\":0,\"text\":\"a\"}]}\n\n"
      "data: {\"error\":{\"message\":\"The engine died\",\"type\":\"InternalServerError\",\"param\":null,"
      "\"code\":500}}\n\ndata: [DONE]\n\n");
  REQUIRE_FALSE(failed);
  CHECK(failed.error().message == "the vLLM server failed: The engine died (InternalServerError, HTTP 500)");

  auto cut = engine->NewStreamDecoder();
  REQUIRE(cut->Feed("data: {\"choices\":[{\"index\":0,\"text\":\"a\"}]}\n\n"));
  auto ended = cut->Finish();
  REQUIRE_FALSE(ended);
  CHECK(ended.error().message.find("ended before its `data: [DONE]`") != std::string::npos);

  CHECK_FALSE(engine->NewStreamDecoder()->Feed("data: {not json}\n\n"));
  CHECK_FALSE(engine->NewStreamDecoder()->Feed("data: {\"choices\":[{\"index\":0}]}\n\n"));
  // Deeper than any chunk: refused by the bounded parse, not walked.
  CHECK_FALSE(engine->NewStreamDecoder()->Feed("data: " + std::string(300, '[') + std::string(300, ']') + "\n\n"));
}

TEST_CASE("vLLM's error shapes, old and new, and the simulator's, are one line each") {
  auto engine = MakeEngine(EngineKind::kVllm);
  // vLLM >= 0.10.1.
  auto unknown = engine->ErrorFrom(
      Reply(404, R"({"error":{"message":"The model `nope` does not exist. Valid aliases: m","type":"NotFoundError",)"
                 R"("param":"model","code":404}})"));
  CHECK(unknown.message ==
        "the vLLM server refused the request: The model `nope` does not exist. Valid aliases: m (NotFoundError, "
        "HTTP 404)");
  CHECK(unknown.http_status == 404);
  CHECK(unknown.kind == core::ErrorKind::kNotFound);
  // vLLM <= 0.10.0: the flat shape.
  auto flat = engine->ErrorFrom(
      Reply(400, R"({"object":"error","message":"This model's maximum context length is 256 tokens.\nHowever, you)"
                 R"( requested 1003 tokens","type":"BadRequestError","param":null,"code":400})"));
  CHECK(flat.message ==
        "the vLLM server refused the request: This model's maximum context length is 256 tokens. However, you "
        "requested 1003 tokens (BadRequestError, HTTP 400)");
  // Validation: vLLM's "Bad Request" type with its list; an --api-key refusal; FastAPI's 404.
  CHECK(engine
            ->ErrorFrom(Reply(400, R"({"error":{"message":"[{'type': 'missing', 'loc': ('body', 'prompt')}]",)"
                                   R"("type":"Bad Request","param":null,"code":400}})"))
            .message ==
        "the vLLM server refused the request: [{'type': 'missing', 'loc': ('body', 'prompt')}] "
        "(Bad Request, HTTP 400)");
  CHECK(engine->ErrorFrom(Reply(401, R"({"error":"Unauthorized"})")).message ==
        "the vLLM server refused the request: Unauthorized (HTTP 401)");
  CHECK(engine->ErrorFrom(Reply(404, R"({"detail":"Not Found"})")).message ==
        "the vLLM server refused the request: Not Found (HTTP 404)");
  // The simulator's unknown path: plain text.
  CHECK(engine->ErrorFrom(Reply(404, "Not Found")).message ==
        "the vLLM server refused the request: Not Found (HTTP 404)");
  auto dead = engine->ErrorFrom(Reply(503, ""));
  CHECK(dead.kind == core::ErrorKind::kUnavailable);
  CHECK(dead.message.rfind("the vLLM server is not serving: no reason given (HTTP 503)", 0) == 0);
  auto proxy = engine->ErrorFrom(Reply(
      503,
      R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"no endpoints available for service \"vllm-service\"","reason":"ServiceUnavailable","code":503})"));
  CHECK(proxy.message ==
        "the API server's service proxy: no endpoints available for service \"vllm-service\" (HTTP 503)");
  // vLLM's port is closed while it loads: the service proxy's refused dial.
  auto loading = engine->ErrorFrom(Reply(
      503,
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"error trying to reach service: dial tcp 10.244.1.2:8000: connect: connection refused","reason":"ServiceUnavailable","code":503})"));
  CHECK(loading.kind == core::ErrorKind::kUnavailable);
  CHECK(loading.message ==
        "the vLLM server does not accept connections yet (its port opens once the model is loaded; or it exited): "
        "the API server's service proxy: error trying to reach service: dial tcp 10.244.1.2:8000: connect: "
        "connection refused (HTTP 503); tputrain serve status shows where it stands");
  // A server's terminal controls do not reach the terminal.
  auto escaped = engine->ErrorFrom(Reply(500, "{\"error\":{\"message\":\"bad\\u001b[2J\",\"type\":\"X\"}}"));
  CHECK(escaped.message.find('\x1b') == std::string::npos);
}

TEST_CASE("What a user types for vLLM: ROLE:TEXT messages, model names, prompts") {
  auto message = ParseChatMessage("--message", "user:What is: a TPU?");
  REQUIRE(message);
  CHECK(message->role == "user");
  CHECK(message->content == "What is: a TPU?");
  CHECK(ParseChatMessage("--message", "system:line one\nline two"));
  for (const char* bad : {"hello", "bot:hi", "user:", ":hi", "User:hi"}) {
    INFO(bad);
    auto refused = ParseChatMessage("--message", bad);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().kind == core::ErrorKind::kInvalidArgument);
    CHECK(refused.error().message.rfind("--message: ", 0) == 0);
  }
  CHECK_FALSE(ParseChatMessage("--message", "user:\xff"));
  CHECK(CheckServedModelName("--model", "meta-llama/Llama-3.1-8B"));
  for (const std::string& bad : {std::string(), std::string("a\nb"), std::string("\xc3"), std::string(513, 'm')}) {
    CHECK_FALSE(CheckServedModelName("--model", bad));
  }
  CHECK(CheckPromptText("--prompt", "two\nlines"));
  CHECK_FALSE(CheckPromptText("--prompt", "\xed\xa0\x80"));
}

}  // namespace
}  // namespace tputrain::serving
