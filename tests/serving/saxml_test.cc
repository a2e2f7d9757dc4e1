#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tputrain/serving/engine.h"
#include "tputrain/serving/saxml.h"

namespace tputrain::serving {
namespace {

constexpr char kBase[] = "https://k/api/v1/namespaces/default/services/sax-http-lb:8888/proxy/";

http::Response Reply(int status, std::string body) {
  http::Response response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

TEST_CASE("Saxml's generate sends exactly model and query, what both sax-http servers accept") {
  auto engine = MakeEngine(EngineKind::kSaxml);
  CHECK(engine->DefaultService() == "sax-http-lb");
  CHECK(engine->DefaultPort() == 8888);
  CHECK_FALSE(engine->CanStream());
  CHECK_FALSE(engine->TakesMaxTokens());
  CHECK(engine->NewStreamDecoder() == nullptr);
  GenerateRequest request{"Q: What is the capital of France? A:", 0, false, "/sax/test/spmd"};
  auto sent = engine->BuildGenerate(kBase, request);
  CHECK(sent.method == "POST");
  CHECK(sent.url == std::string(kBase) + "generate");
  CHECK(nlohmann::json::parse(sent.body) ==
        nlohmann::json{{"model", "/sax/test/spmd"}, {"query", "Q: What is the capital of France? A:"}});
  CHECK_FALSE(sent.idempotent);
  CHECK(engine->BuildHealthCheck(kBase).url == kBase);
  CHECK(engine->IsHealthy(Reply(200, R"({"message": "HTTP Server for SAX Client"})")));
  CHECK_FALSE(engine->IsHealthy(Reply(503, R"({"kind":"Status","message":"no endpoints available"})")));
}

TEST_CASE("Saxml's answers in both shapes give the best candidate's text") {
  auto engine = MakeEngine(EngineKind::kSaxml);
  // The newer server: the bare list; the older: under generate_response. Best = highest score.
  CHECK(*engine->ParseGenerated(Reply(200, R"([["Paris", -0.5], ["Lyon", -3.25]])")) == "Paris");
  CHECK(*engine->ParseGenerated(Reply(200, "{\"generate_response\": [[\"Lyon\", -3.0], [\"Paris\", -0.1]]}\n")) ==
        "Paris");
  CHECK_FALSE(engine->ParseGenerated(Reply(200, R"({"response": "x"})")));
  CHECK_FALSE(engine->ParseGenerated(Reply(200, "[]")));
}

TEST_CASE("sax-http's admin requests: publish's four keys, listcell as a GET with a body, unpublish") {
  auto publish =
      BuildPublish(kBase, {"/sax/test/spmd", "saxml.server.pax.lm.params.lm_cloud.LmCloudSpmd175B32Test", "None", 2});
  CHECK(publish.method == "POST");
  CHECK(publish.url == std::string(kBase) + "publish");
  CHECK(nlohmann::json::parse(publish.body) ==
        nlohmann::json{{"model", "/sax/test/spmd"},
                       {"model_path", "saxml.server.pax.lm.params.lm_cloud.LmCloudSpmd175B32Test"},
                       {"checkpoint", "None"},
                       {"replicas", 2}});
  CHECK_FALSE(publish.idempotent);
  auto list = BuildListCell(kBase, "/sax/test/spmd");
  CHECK(list.method == "GET");
  CHECK(list.url == std::string(kBase) + "listcell");
  CHECK(nlohmann::json::parse(list.body) == nlohmann::json{{"model", "/sax/test/spmd"}});
  auto unpublish = BuildUnpublish(kBase, "/sax/test/spmd");
  CHECK(unpublish.method == "POST");
  CHECK(nlohmann::json::parse(unpublish.body) == nlohmann::json{{"model", "/sax/test/spmd"}});

  auto entry = ParseListCell(Reply(200, R"({"model": "/sax/test/spmd", "model_path": "p", "checkpoint": "None",
                                             "max_replicas": 2, "active_replicas": 1})"));
  REQUIRE(entry);
  CHECK(entry->active_replicas == 1);
  CHECK(entry->max_replicas == 2);
  CHECK(entry->model_path == "p");
  CHECK_FALSE(ParseListCell(Reply(200, R"({"model": "/sax/test/spmd"})")));
}

TEST_CASE("sax-http's errors, in the older and the newer shape, are one line with a kind") {
  auto older = SaxHttpError(Reply(400, "{\"Error\": \"NOT_FOUND: /sax/test/x is not published\"}\n"));
  CHECK(older.kind == core::ErrorKind::kNotFound);
  CHECK(older.message == "sax-http: NOT_FOUND: /sax/test/x is not published (HTTP 400)");
  auto newer = SaxHttpError(Reply(500, R"({"detail": "model /sax/test/spmd already exists"})"));
  CHECK(newer.kind == core::ErrorKind::kAlreadyExists);
  CHECK(newer.http_status == 500);
  auto loading = SaxHttpError(Reply(500, R"({"detail": "UNAVAILABLE: no replica has loaded\n/sax/test/spmd"})"));
  CHECK(loading.kind == core::ErrorKind::kUnavailable);
  CHECK(loading.message == "sax-http: UNAVAILABLE: no replica has loaded /sax/test/spmd (HTTP 500)");
  auto invalid =
      SaxHttpError(Reply(422, R"({"detail": [{"loc": ["body", "replicas"], "msg": "value is not a valid integer"}]})"));
  CHECK(invalid.message == "sax-http refused the request: body.replicas: value is not a valid integer (HTTP 422)");
  CHECK(SaxHttpError(Reply(400, R"({"message": "Invalid Request"})")).message ==
        "sax-http: Invalid Request (HTTP 400)");
  CHECK(SaxHttpError(Reply(503, R"({"kind":"Status","message":"no endpoints available for service \"sax-http-lb\""})"))
            .message ==
        "the API server's service proxy: no endpoints available for service \"sax-http-lb\" (HTTP 503)");
}

TEST_CASE("Saxml model ids are /ROOT/CELL/NAME") {
  CHECK(CheckSaxModelId("--model", "/sax/test/spmd"));
  CHECK(CheckSaxModelId("--model", "/sax/test-2/gpt_j.v1"));
  for (const char* bad :
       {"", "/", "sax/test/spmd", "/sax/test", "/sax/test/spmd/x", "/sax//spmd", "/sax/te st/m", "/sax/test/%2e%2e"}) {
    INFO(bad);
    auto checked = CheckSaxModelId("--model", bad);
    REQUIRE_FALSE(checked);
    CHECK(checked.error().message.find("--model: expected a Saxml model id /sax/CELL/NAME") == 0);
  }
  CHECK(SaxCellOf("/sax/test/spmd") == "/sax/test");
}

}  // namespace
}  // namespace tputrain::serving
