#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"

// What `tputrain serve status` reads from a vLLM server (../shared/notes/vllm.md §2.7, §2.8):
// GET /health's status says whether it serves, GET /v1/models what, and GET /metrics (Prometheus
// text) how busy it is.
namespace tputrain::serving {

enum class VllmState {
  kServing,  // /health 200
  kLoading,  // 503: vLLM's port stays closed while it loads weights and compiles (the service
             // proxy answers 503 for the refused connection, or for a Service with no ready pod)
  kFailing,  // any other answer
};
std::string_view VllmStateName(VllmState state);

// The state a GET /health answer tells, and its one line for a state other than serving.
struct VllmHealth {
  VllmState state = VllmState::kFailing;
  std::string detail;  // "" when serving
};
VllmHealth VllmHealthOf(const http::Response& response);

// The served models' ids of a GET /v1/models answer, in its order (the base model, then its
// LoRA adapters).
core::Result<std::vector<std::string>> ParseVllmModels(const http::Response& response);

// A few of vLLM's Prometheus series, summed over their label sets (one per engine and model);
// unset where the server exports no such series.
struct VllmMetrics {
  std::optional<double> requests_running;            // vllm:num_requests_running
  std::optional<double> requests_waiting;            // vllm:num_requests_waiting
  std::optional<double> kv_cache_usage;              // vllm:kv_cache_usage_perc (0-1; the mean over engines), or
                                                     // the older vllm:gpu_cache_usage_perc
  std::optional<double> time_to_first_token_mean_s;  // vllm:time_to_first_token_seconds _sum / _count
  std::optional<double> prompt_tokens;               // vllm:prompt_tokens_total
  std::optional<double> generation_tokens;           // vllm:generation_tokens_total
  std::optional<double> requests_finished;           // vllm:request_success_total
};
// Parses Prometheus' text exposition format (bounded: up to 16 MiB, lines of up to 64 KiB); a
// line that is not a sample is a usage of the format this parser does not know, and fails.
core::Result<VllmMetrics> ParseVllmMetrics(std::string_view text);

}  // namespace tputrain::serving
