#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tputrain/serving/engine.h"

namespace tputrain::serving {
namespace {

http::Response Reply(int status, std::string body) {
  http::Response response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

TEST_CASE("JetStream's requests are jetstream-http's: /generate with prompt and max_tokens, /healthcheck") {
  auto engine = MakeEngine(EngineKind::kJetStream);
  CHECK(engine->DefaultService() == "jetstream-svc");
  CHECK(engine->DefaultPort() == 8000);
  auto request = engine->BuildGenerate("https://k/api/v1/namespaces/default/services/jetstream-svc:8000/proxy/",
                                       {"What is a TPU?", 20, false});
  CHECK(request.method == "POST");
  CHECK(request.url == "https://k/api/v1/namespaces/default/services/jetstream-svc:8000/proxy/generate");
  CHECK(nlohmann::json::parse(request.body) == nlohmann::json{{"prompt", "What is a TPU?"}, {"max_tokens", 20}});
  CHECK_FALSE(request.idempotent);
  auto streamed = engine->BuildGenerate("http://h/", {"x", 5, true});
  CHECK(nlohmann::json::parse(streamed.body)["stream"] == true);
  CHECK(engine->BuildHealthCheck("http://h/").url == "http://h/healthcheck");
}

TEST_CASE("JetStream's answers: health, the generated text, the streamed tokens") {
  auto engine = MakeEngine(EngineKind::kJetStream);
  CHECK(engine->IsHealthy(Reply(200, R"({"response": {"is_live": true}})")));
  CHECK_FALSE(engine->IsHealthy(Reply(500, R"({"detail":"Healthcheck failed"})")));
  CHECK_FALSE(engine->IsHealthy(Reply(200, R"({"message": "HTTP Server for JetStream"})")));
  CHECK(*engine->ParseGenerated(Reply(200, "{\n    \"response\": \"atted le\\u901a\"\n}")) == "atted le\xe9\x80\x9a");
  CHECK_FALSE(engine->ParseGenerated(Reply(200, "{}")));

  auto decoder = engine->NewStreamDecoder();
  auto first = decoder->Feed("{\"id\": \"g\", \"time_created\": 1.0, \"text\": \"ql\"}{\"id\": \"g\", \"te");
  REQUIRE(first);
  CHECK(*first == std::vector<std::string>{"ql"});
  auto rest = decoder->Feed("xt\": \" world\"}{\"id\": \"g\", \"text\": \"\"}");
  REQUIRE(rest);
  CHECK(*rest == std::vector<std::string>{" world", ""});
  CHECK_FALSE(engine->NewStreamDecoder()->Feed("{\"detail\": \"no text\"}"));
}

TEST_CASE("JetStream's failures are one line each, in the server's words") {
  auto engine = MakeEngine(EngineKind::kJetStream);
  auto invalid = engine->ErrorFrom(Reply(
      422,
      R"({"detail":[{"type":"string_type","loc":["body","prompt"],"msg":"Input should be a valid string","input":5}]})"));
  CHECK(invalid.message ==
        "jetstream-http refused the request: body.prompt: Input should be a valid string (HTTP 422)");
  CHECK(invalid.http_status == 422);

  auto loading = engine->ErrorFrom(Reply(
      500,
      "{\"detail\":\"<AioRpcError of RPC that terminated with:\\n\\tstatus = StatusCode.UNAVAILABLE\\n\\tdetails = "
      "\\\"failed to connect to all addresses\\\"\"}"));
  CHECK(loading.kind == core::ErrorKind::kUnavailable);
  CHECK(loading.message.rfind("the engine behind jetstream-http is not serving (still loading, or down): gRPC "
                              "UNAVAILABLE (HTTP 500)",
                              0) == 0);

  auto no_endpoints = engine->ErrorFrom(Reply(
      503,
      R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"no endpoints available for service \"jetstream-svc\"","reason":"ServiceUnavailable","code":503})"));
  CHECK(no_endpoints.message ==
        "the API server's service proxy: no endpoints available for service \"jetstream-svc\" (HTTP 503)");

  auto html = engine->ErrorFrom(Reply(502, "<html>\n<body>Bad Gateway</body>\n</html>"));
  CHECK(html.message == "jetstream-http answered: <html> <body>Bad Gateway</body> </html> (HTTP 502)");
  for (const auto* error : {&invalid, &loading, &no_endpoints, &html}) {
    CHECK(error->message.find('\n') == std::string::npos);
  }
  CHECK(ParseEngine("--engine", "tgi").error().message ==
        "--engine: unknown engine 'tgi'; expected jetstream, saxml or vllm");
}

}  // namespace
}  // namespace tputrain::serving
