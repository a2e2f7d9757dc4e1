// What serve status reads of a vLLM server, from vLLM 0.32's own answers (../shared/notes/vllm.md
// §2.2, §2.7, §2.8): Prometheus text as prometheus_client writes it (HELP and TYPE lines, the
// engine and model_name labels, histograms' buckets, counters' _created), and the service proxy's
// 503 while the port is closed.
#include <catch2/catch.hpp>

#include "tputrain/serving/vllm_status.h"

namespace tputrain::serving {
namespace {

http::Response Reply(int status, std::string body) {
  http::Response response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

// Two engines (data parallel) of one model, as vLLM 0.32 exports them.
constexpr const char* kVllmMetrics = R"(# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="meta-llama/Llama-3.1-8B"} 3.0
vllm:num_requests_running{engine="1",model_name="meta-llama/Llama-3.1-8B"} 2.0
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="meta-llama/Llama-3.1-8B"} 7.0
vllm:num_requests_waiting{engine="1",model_name="meta-llama/Llama-3.1-8B"} 0.0
# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="meta-llama/Llama-3.1-8B"} 0.5
vllm:kv_cache_usage_perc{engine="1",model_name="meta-llama/Llama-3.1-8B"} 0.25
# HELP vllm:lora_requests_info Running stats on lora requests.
# TYPE vllm:lora_requests_info gauge
vllm:lora_requests_info{max_lora="1",running_lora_adapters="",waiting_lora_adapters=""} 1.7643e+09
# HELP vllm:prompt_tokens_total Number of prefill tokens processed.
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{engine="0",model_name="meta-llama/Llama-3.1-8B"} 1200.0
vllm:prompt_tokens_created{engine="0",model_name="meta-llama/Llama-3.1-8B"} 1.7643e+09
vllm:prompt_tokens_total{engine="1",model_name="meta-llama/Llama-3.1-8B"} 800.0
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0",model_name="meta-llama/Llama-3.1-8B"} 4096.0
# TYPE vllm:request_success_total counter
vllm:request_success_total{engine="0",finished_reason="stop",model_name="meta-llama/Llama-3.1-8B"} 10.0
vllm:request_success_total{engine="0",finished_reason="length",model_name="meta-llama/Llama-3.1-8B"} 2.0
# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.001",model_name="meta-llama/Llama-3.1-8B"} 0.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf",model_name="meta-llama/Llama-3.1-8B"} 4.0
vllm:time_to_first_token_seconds_count{engine="0",model_name="meta-llama/Llama-3.1-8B"} 4.0
vllm:time_to_first_token_seconds_sum{engine="0",model_name="meta-llama/Llama-3.1-8B"} 1.0
vllm:time_to_first_token_seconds_count{engine="1",model_name="meta-llama/Llama-3.1-8B"} 4.0
vllm:time_to_first_token_seconds_sum{engine="1",model_name="meta-llama/Llama-3.1-8B"} 3.0
)";

TEST_CASE("vLLM's /metrics: the gauges summed over engines, the KV cache's mean, TTFT's mean", "[unit]") {
  auto metrics = ParseVllmMetrics(kVllmMetrics);
  REQUIRE(metrics);
  CHECK(metrics->requests_running == 5.0);
  CHECK(metrics->requests_waiting == 7.0);
  CHECK(metrics->kv_cache_usage == Approx(0.375));
  CHECK(metrics->time_to_first_token_mean_s == Approx(0.5));
  CHECK(metrics->prompt_tokens == 2000.0);
  CHECK(metrics->generation_tokens == 4096.0);
  CHECK(metrics->requests_finished == 12.0);
}

TEST_CASE("vLLM's /metrics: older servers' gpu_cache_usage_perc, a server with no requests yet", "[unit]") {
  auto older = ParseVllmMetrics(
      "vllm:gpu_cache_usage_perc{model_name=\"m\"} 0.8\n"
      "vllm:num_requests_running{model_name=\"m\"} 0\n");
  REQUIRE(older);
  CHECK(older->kv_cache_usage == Approx(0.8));
  CHECK(older->requests_running == 0.0);
  CHECK_FALSE(older->requests_waiting);
  // No request finished: no TTFT (its count is 0), not a division by zero.
  auto idle = ParseVllmMetrics(
      "vllm:time_to_first_token_seconds_sum{model_name=\"m\"} 0.0\n"
      "vllm:time_to_first_token_seconds_count{model_name=\"m\"} 0.0\n");
  REQUIRE(idle);
  CHECK_FALSE(idle->time_to_first_token_mean_s);
  auto empty = ParseVllmMetrics("");
  REQUIRE(empty);
  CHECK_FALSE(empty->requests_running);
}

TEST_CASE("vLLM's /metrics: label values with spaces, braces and escaped quotes; NaN and timestamps", "[unit]") {
  auto metrics = ParseVllmMetrics(
      "vllm:num_requests_running{model_name=\"a \\\"b\\\" {c} d\",engine=\"0\"} 4 1700000000000\r\n"
      "  vllm:num_requests_waiting{model_name=\"x\\\\\"} NaN\n"
      "vllm:num_requests_waiting{model_name=\"y\"} 1e0\n");
  REQUIRE(metrics);
  CHECK(metrics->requests_running == 4.0);
  CHECK(metrics->requests_waiting == 1.0);
}

TEST_CASE("vLLM's /metrics: what is no Prometheus text fails, naming the line", "[unit]") {
  for (const char* text : {"<html>Not Found</html>\n", "vllm:num_requests_running{model_name=\"m\" 1\n",
                           "vllm:num_requests_running{model_name=\"m\"} one\n", "# ok\nvllm:x\n"}) {
    auto metrics = ParseVllmMetrics(text);
    INFO(text);
    REQUIRE_FALSE(metrics);
    CHECK(metrics.error().message.find("/metrics line") != std::string::npos);
  }
  CHECK(ParseVllmMetrics("# ok\nvllm:x\n").error().message.find("line 2") != std::string::npos);
  CHECK_FALSE(ParseVllmMetrics(std::string(17 * 1024 * 1024, '#')));
}

TEST_CASE("vLLM's /health: 200 serves; the service proxy's 503 while the port is closed is loading", "[unit]") {
  CHECK(VllmHealthOf(Reply(200, "")).state == VllmState::kServing);
  const auto refused = VllmHealthOf(Reply(
      503,
      R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"error trying to reach service: dial tcp 10.0.0.7:8000: connect: connection refused","reason":"ServiceUnavailable","code":503})"));
  CHECK(refused.state == VllmState::kLoading);
  CHECK(refused.detail.find("connection refused") != std::string::npos);
  const auto no_pod = VllmHealthOf(Reply(
      503,
      R"({"kind":"Status","status":"Failure","message":"no endpoints available for service \"vllm-service\"","code":503})"));
  CHECK(no_pod.state == VllmState::kLoading);
  CHECK(no_pod.detail.find("no endpoints available") != std::string::npos);
  // vLLM's own 503 (its engine died; it exits and the kubelet starts it again) has no body.
  const auto dead = VllmHealthOf(Reply(503, ""));
  CHECK(dead.state == VllmState::kLoading);
  CHECK_FALSE(dead.detail.empty());
  const auto failing =
      VllmHealthOf(Reply(500, R"({"error":{"message":"boom","type":"InternalServerError","code":500}})"));
  CHECK(failing.state == VllmState::kFailing);
  CHECK(failing.detail.find("boom") != std::string::npos);
  CHECK(VllmStateName(VllmState::kLoading) == "loading");
}

TEST_CASE("vLLM's /v1/models: the ids in order, the base model first; an error in one line", "[unit]") {
  auto models = ParseVllmModels(Reply(
      200,
      R"({"object":"list","data":[{"id":"meta-llama/Llama-3.1-8B","object":"model","created":1,"owned_by":"vllm","root":"meta-llama/Llama-3.1-8B","parent":null,"max_model_len":4096,"permission":[{"id":"modelperm-1","object":"model_permission"}]},{"id":"sql-lora","object":"model","root":"/adapters/sql","parent":"meta-llama/Llama-3.1-8B"}]})"));
  REQUIRE(models);
  CHECK(*models == std::vector<std::string>{"meta-llama/Llama-3.1-8B", "sql-lora"});
  CHECK_FALSE(ParseVllmModels(Reply(200, "[]")));
  auto refused = ParseVllmModels(Reply(401, R"({"error":"Unauthorized"})"));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("Unauthorized") != std::string::npos);
}

}  // namespace
}  // namespace tputrain::serving
