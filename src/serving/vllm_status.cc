// What `tputrain serve status` reads of a vLLM server: /health's status, /v1/models' ids and a
// few of /metrics' series (vLLM's names, vllm/v1/metrics/loggers.py; the llm-d simulator exports
// the same ones).
#include "tputrain/serving/vllm_status.h"

#include <cmath>
#include <cstdlib>
#include <map>

#include <nlohmann/json.hpp>

#include "error_text.h"
#include "tputrain/core/json.h"
#include "vllm_error.h"

namespace tputrain::serving {
namespace {

constexpr std::size_t kMaxMetricsBytes = 16 * 1024 * 1024;
constexpr std::size_t kMaxLineBytes = 64 * 1024;

bool IsNameChar(char c, bool first) {
  const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
  return letter || (!first && c >= '0' && c <= '9');
}

std::optional<double> ParseValue(std::string_view token) {
  if (token == "NaN") return std::nullopt;
  if (token == "+Inf" || token == "Inf") return HUGE_VAL;
  if (token == "-Inf") return -HUGE_VAL;
  const std::string text(token);
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) return std::nullopt;
  return value;
}

struct Sample {
  std::string_view name;
  std::optional<double> value;  // unset for NaN
};

// One sample line: NAME[{LABEL="VALUE",...}] VALUE [TIMESTAMP]. The labels are skipped (their
// values may hold spaces, braces and escaped quotes).
core::Result<Sample> ParseSample(std::string_view line) {
  std::size_t at = 0;
  while (at < line.size() && IsNameChar(line[at], at == 0)) ++at;
  if (at == 0) return core::Fail(core::Error::Internal("no metric name"));
  Sample sample{line.substr(0, at), std::nullopt};
  if (at < line.size() && line[at] == '{') {
    bool quoted = false;
    for (++at; at < line.size(); ++at) {
      const char c = line[at];
      if (quoted && c == '\\') {
        ++at;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (!quoted && c == '}') {
        break;
      }
    }
    if (at >= line.size()) return core::Fail(core::Error::Internal("labels without their closing brace"));
    ++at;
  }
  if (at >= line.size() || (line[at] != ' ' && line[at] != '\t')) {
    return core::Fail(core::Error::Internal("no value after the metric name"));
  }
  while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
  std::size_t end = at;
  while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
  const std::string_view token = line.substr(at, end - at);
  sample.value = ParseValue(token);
  if (!sample.value && token != "NaN") return core::Fail(core::Error::Internal("a value that is no number"));
  return sample;
}

struct Series {
  double sum = 0;
  int count = 0;  // label sets with a number
};

}  // namespace

std::string_view VllmStateName(VllmState state) {
  switch (state) {
    case VllmState::kServing:
      return "serving";
    case VllmState::kLoading:
      return "loading";
    case VllmState::kFailing:
      return "failing";
  }
  return "failing";
}

VllmHealth VllmHealthOf(const http::Response& response) {
  if (response.status == 200) return {VllmState::kServing, ""};
  const auto body = core::ParseJson(response.body, "", {.max_bytes = 64 * 1024}).value_or(nullptr);
  if (response.status == 503) {
    // vLLM's own 503 (an engine that died; the server exits and the kubelet restarts it) has no
    // body; the service proxy's says why it could not reach the pod (refused while loading, no
    // ready pod behind the Service yet).
    std::string why = ServiceProxyStatus(body);
    if (why.empty()) why = "the server answered 503: its engine is not up (it restarts)";
    return {VllmState::kLoading, why};
  }
  return {VllmState::kFailing, VllmError(response.status, body, response.body).message};
}

core::Result<std::vector<std::string>> ParseVllmModels(const http::Response& response) {
  const auto body = core::ParseJson(response.body, "", {.max_bytes = 4 * 1024 * 1024}).value_or(nullptr);
  if (response.status != 200) return core::Fail(VllmError(response.status, body, response.body));
  if (!body.is_object() || !body.contains("data") || !body["data"].is_array()) {
    return core::Fail(core::Error::Internal("the vLLM server's GET /v1/models answered no list of models: " +
                                            OneLine(response.body)));
  }
  std::vector<std::string> ids;
  for (const auto& model : body["data"]) {
    if (model.is_object() && model.contains("id") && model["id"].is_string()) ids.push_back(model["id"]);
  }
  return ids;
}

core::Result<VllmMetrics> ParseVllmMetrics(std::string_view text) {
  if (text.size() > kMaxMetricsBytes) {
    return core::Fail(
        core::Error::Make(core::ErrorKind::kResourceExhausted, "the vLLM server's /metrics is over 16 MiB"));
  }
  std::map<std::string_view, Series, std::less<>> series;
  std::size_t line_number = 0;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.empty() || line.front() == '#') continue;
    auto sample = line.size() > kMaxLineBytes
                      ? core::Result<Sample>(core::Fail(core::Error::Internal("a line over 64 KiB")))
                      : ParseSample(line);
    if (!sample) {
      return core::Fail(core::Error::Internal("the vLLM server's /metrics line " + std::to_string(line_number) +
                                              " is no Prometheus sample (" + sample.error().message +
                                              "): " + OneLine(std::string(line.substr(0, 300)))));
    }
    if (!sample->value || !std::isfinite(*sample->value)) continue;
    auto& counted = series[sample->name];
    counted.sum += *sample->value;
    ++counted.count;
  }
  auto sum = [&](std::string_view name) -> std::optional<double> {
    auto found = series.find(name);
    if (found == series.end()) return std::nullopt;
    return found->second.sum;
  };
  auto mean = [&](std::string_view name) -> std::optional<double> {
    auto found = series.find(name);
    if (found == series.end() || found->second.count == 0) return std::nullopt;
    return found->second.sum / found->second.count;
  };
  VllmMetrics metrics;
  metrics.requests_running = sum("vllm:num_requests_running");
  metrics.requests_waiting = sum("vllm:num_requests_waiting");
  metrics.kv_cache_usage = mean("vllm:kv_cache_usage_perc");
  if (!metrics.kv_cache_usage) metrics.kv_cache_usage = mean("vllm:gpu_cache_usage_perc");
  const auto ttft_sum = sum("vllm:time_to_first_token_seconds_sum");
  const auto ttft_count = sum("vllm:time_to_first_token_seconds_count");
  if (ttft_sum && ttft_count && *ttft_count > 0) metrics.time_to_first_token_mean_s = *ttft_sum / *ttft_count;
  metrics.prompt_tokens = sum("vllm:prompt_tokens_total");
  metrics.generation_tokens = sum("vllm:generation_tokens_total");
  metrics.requests_finished = sum("vllm:request_success_total");
  return metrics;
}

}  // namespace tputrain::serving
