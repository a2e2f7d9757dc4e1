// The Saxml test peers themselves: both sax-http front ends (the upstream FastAPI http_server.py,
// unchanged, and the project's stdlib v1.0.0 stand-in) on the FAKE `sax` client, each in its
// network namespace, asked over plain HTTP as tputrain will ask them. What a Saxml test relies
// on is pinned here: publish returns before loading, listcell counts the replicas up, generate
// fails until one is active and is deterministic after, and each variant's error shape.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "k8s/netns_saxml.h"

namespace tputrain::testing {
namespace {

const std::string kModelPath = "saxml.server.pax.lm.params.lm_cloud.LmCloudSpmd175B32Test";
constexpr double kLoadSeconds = 1;

nlohmann::json PublishBody(const std::string& model, const std::string& model_path, const nlohmann::json& replicas) {
  return {{"model", model}, {"model_path", model_path}, {"checkpoint", "None"}, {"replicas", replicas}};
}

// The message of a failed call, in the variant's shape: FastAPI's 500 {"detail"}, v1's 400 {"Error"}.
std::string ErrorOf(const NetnsSaxHttp& sax, const SaxHttpAnswer& answer) {
  const bool upstream = sax.variant() == SaxHttpVariant::kUpstreamFastApi;
  INFO(answer.body);
  REQUIRE(answer.status == (upstream ? 500 : 400));
  auto body = answer.Json();
  REQUIRE(body.size() == 1);
  return body.at(upstream ? "detail" : "Error").get<std::string>();
}

int ActiveReplicas(const NetnsSaxHttp& sax, const std::string& model) {
  auto answer = sax.Direct("GET", "/listcell", {{"model", model}});
  INFO(answer.body);
  REQUIRE(answer.status == 200);
  return answer.Json().at("active_replicas").get<int>();
}

// The candidates' texts; their scores must be log-probabilities (floats). FastAPI answers the bare
// list of [text, score] pairs, v1 wraps it in {"generate_response"}.
std::vector<std::string> GeneratedTexts(const NetnsSaxHttp& sax, const std::string& model, const std::string& query) {
  auto answer = sax.Direct("POST", "/generate", {{"model", model}, {"query", query}});
  INFO(answer.body);
  REQUIRE(answer.status == 200);
  auto body = answer.Json();
  const nlohmann::json candidates =
      sax.variant() == SaxHttpVariant::kUpstreamFastApi ? body : body.at("generate_response");
  std::vector<std::string> texts;
  for (const auto& candidate : candidates) {
    REQUIRE(candidate.size() == 2);
    CHECK(candidate[1].is_number_float());
    texts.push_back(candidate[0].get<std::string>());
  }
  return texts;
}

void ExerciseLifecycle(SaxHttpVariant variant) {
  NetnsSaxHttp sax(variant, kLoadSeconds);
  const bool upstream = variant == SaxHttpVariant::kUpstreamFastApi;
  const std::string model = "/sax/test/spmd";

  auto root = sax.Direct("GET", "/");
  CHECK(root.status == 200);
  CHECK(root.Json() == nlohmann::json{{"message", "HTTP Server for SAX Client"}});
  CHECK(root.content_type == (upstream ? "application/json" : ""));

  // Publish answers at once, echoing the request (v1 names the model path "path").
  auto published = sax.Direct("POST", "/publish", PublishBody(model, kModelPath, 2));
  INFO(published.body);
  REQUIRE(published.status == 200);
  CHECK(published.Json() ==
        nlohmann::json{
            {"model", model}, {upstream ? "model_path" : "path", kModelPath}, {"checkpoint", "None"}, {"replicas", 2}});
  auto listed = sax.Direct("GET", "/listcell", {{"model", model}});
  CHECK(listed.Json() == nlohmann::json{{"model", model},
                                        {"model_path", kModelPath},
                                        {"checkpoint", "None"},
                                        {"max_replicas", 2},
                                        {"active_replicas", 0}});

  // Still loading: generate fails in the server's words.
  CHECK_THAT(ErrorOf(sax, sax.Direct("POST", "/generate", {{"model", model}, {"query", "Q: why? A:"}})),
             Catch::Contains("UNAVAILABLE: no replica has loaded model /sax/test/spmd"));

  const auto published_at = std::chrono::steady_clock::now();
  REQUIRE(WaitFor([&] { return ActiveReplicas(sax, model) == 2; }, std::chrono::seconds(20)));
  INFO("active after " << std::chrono::duration<double>(std::chrono::steady_clock::now() - published_at).count()
                       << " s");
  CHECK_THAT(sax.Log(), Catch::Contains("/sax/test/spmd: loading completed."));

  // Loaded: two candidates, the same for the same query, another for another query.
  auto first = GeneratedTexts(sax, model, "Q: why? A:");
  CHECK(first.size() == 2);
  CHECK(GeneratedTexts(sax, model, "Q: why? A:") == first);
  CHECK(GeneratedTexts(sax, model, "Q: how? A:") != first);

  CHECK_THAT(ErrorOf(sax, sax.Direct("POST", "/publish", PublishBody(model, kModelPath, 1))),
             Catch::Contains("model /sax/test/spmd already exists"));
  CHECK_THAT(ErrorOf(sax, sax.Direct("POST", "/publish", PublishBody("/sax/test/typo", "lm_cloud.NoSuchModel", 1))),
             Catch::Contains("model path 'lm_cloud.NoSuchModel' is not servable"));
  CHECK_THAT(ErrorOf(sax, sax.Direct("POST", "/publish", PublishBody("spmd", kModelPath, 1))),
             Catch::Contains("should have the form /sax/<cell name>/<model name>"));

  auto unpublished = sax.Direct("POST", "/unpublish", {{"model", model}});
  CHECK(unpublished.status == 200);
  CHECK(unpublished.Json() == nlohmann::json{{"model", model}});
  CHECK_THAT(ErrorOf(sax, sax.Direct("GET", "/listcell", {{"model", model}})),
             Catch::Contains("NOT_FOUND: model /sax/test/spmd not found"));
  CHECK_THAT(ErrorOf(sax, sax.Direct("POST", "/unpublish", {{"model", model}})), Catch::Contains("not found"));
  CHECK_THAT(ErrorOf(sax, sax.Direct("POST", "/generate", {{"model", model}, {"query", "Q: why? A:"}})),
             Catch::Contains("not found"));
}

}  // namespace

TEST_CASE("upstream FastAPI sax-http on the fake sax: the publish-load-generate-unpublish cycle") {
  ExerciseLifecycle(SaxHttpVariant::kUpstreamFastApi);
}

TEST_CASE("stdlib sax-http v1 on the fake sax: the publish-load-generate-unpublish cycle") {
  ExerciseLifecycle(SaxHttpVariant::kStdlibV1);
}

TEST_CASE("upstream FastAPI sax-http: its own validation and listall and extra_inputs") {
  NetnsSaxHttp sax(SaxHttpVariant::kUpstreamFastApi, 0);
  const std::string model = "/sax/test/lm2b";
  const std::string path = "saxml.server.pax.lm.params.lm_cloud.LmCloudSpmd2BTest";
  // A missing field is pydantic's 422, before the client is asked.
  auto missing = sax.Direct("POST", "/generate", {{"model", model}});
  CHECK(missing.status == 422);
  CHECK_THAT(missing.body, Catch::Contains("query"));

  REQUIRE(sax.Direct("POST", "/publish", PublishBody(model, path, 1)).status == 200);
  auto all = sax.Direct("GET", "/listall", {{"sax_cell", "/sax/test"}});
  CHECK(all.status == 200);
  CHECK(all.Json() == nlohmann::json::array({model}));
  REQUIRE(ActiveReplicas(sax, model) == 1);  // a load time of 0: active at once

  // The tutorial's decoding settings are accepted and do not change the fake's answer.
  auto tuned = sax.Direct("POST", "/generate",
                          {{"model", model},
                           {"query", "Q: why? A:"},
                           {"extra_inputs", {{"temperature", 0.1}, {"per_example_max_decode_steps", 32}}}});
  INFO(tuned.body);
  REQUIRE(tuned.status == 200);
  std::vector<std::string> tuned_texts;
  const auto tuned_candidates = tuned.Json();
  for (const auto& candidate : tuned_candidates) tuned_texts.push_back(candidate[0].get<std::string>());
  CHECK(tuned_texts == GeneratedTexts(sax, model, "Q: why? A:"));

  // update changes the replicas only, as Saxml's admin allows.
  auto updated = sax.Direct("PUT", "/update", PublishBody(model, path, 3));
  CHECK(updated.status == 200);
  CHECK(ActiveReplicas(sax, model) == 3);
  CHECK_THAT(ErrorOf(sax, sax.Direct("PUT", "/update", PublishBody(model, kModelPath, 3))),
             Catch::Contains("model path can't be changed"));
}

TEST_CASE("stdlib sax-http v1: exact key counts and numeric-string replicas and unknown paths") {
  NetnsSaxHttp sax(SaxHttpVariant::kStdlibV1, kLoadSeconds);
  const std::string model = "/sax/test/spmd";
  CHECK(ErrorOf(sax, sax.Direct("POST", "/generate", {{"model", model}})) == "Provide model and query for generate");
  CHECK(ErrorOf(sax, sax.Direct("POST", "/generate",
                                {{"model", model}, {"query", "q"}, {"extra_inputs", nlohmann::json::object()}})) ==
        "Provide model and query for generate");
  CHECK(ErrorOf(sax, sax.Direct("POST", "/publish", {{"model", model}, {"model_path", kModelPath}})) ==
        "Provide model, model_path, checkpoint and replicas for publish");
  CHECK(ErrorOf(sax, sax.Direct("GET", "/listcell", {{"model", model}, {"checkpoint", "None"}})) ==
        "Provide model for listcell");

  // replicas as a numeric string, as the v1 server took it; echoed as a number.
  auto published = sax.Direct("POST", "/publish", PublishBody(model, kModelPath, "2"));
  INFO(published.body);
  REQUIRE(published.status == 200);
  CHECK(published.Json().at("replicas") == 2);
  CHECK_THAT(ErrorOf(sax, sax.Direct("POST", "/publish", PublishBody("/sax/test/other", kModelPath, "two"))),
             Catch::Contains("replicas must be an integer"));

  // Unknown routes and methods: 400 with a "message", not an "Error".
  for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
           {"GET", "/listall"}, {"GET", "/publish"}, {"POST", "/nothing"}, {"DELETE", "/unpublish"}}) {
    auto answer = sax.Direct(method, path);
    INFO(method << " " << path << ": " << answer.body);
    CHECK(answer.status == 400);
    CHECK(answer.Json() == nlohmann::json{{"message", "Invalid Request"}});
  }
  // The older server's raw answers: no Content-Type, a trailing newline.
  auto root = sax.Direct("GET", "/");
  CHECK(root.content_type.empty());
  CHECK(root.body.back() == '\n');
}

TEST_CASE("a load that never finishes keeps active_replicas at 0 and generate unavailable") {
  NetnsSaxHttp sax(SaxHttpVariant::kStdlibV1, -1);
  const std::string model = "/sax/test/stuck";
  REQUIRE(sax.Direct("POST", "/publish", PublishBody(model, kModelPath, 1)).status == 200);
  CHECK_FALSE(WaitFor([&] { return ActiveReplicas(sax, model) != 0; }, std::chrono::milliseconds(1500)));
  CHECK_THAT(ErrorOf(sax, sax.Direct("POST", "/generate", {{"model", model}, {"query", "q"}})),
             Catch::Contains("UNAVAILABLE"));
  CHECK_THAT(sax.Log(), Catch::Contains("it never completes"));
}

}  // namespace tputrain::testing
