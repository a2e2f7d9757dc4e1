// serve status asks a vLLM server how it stands: GET /health first (vLLM keeps its port closed
// while it loads, so the service proxy's 503 is "loading"), then what it serves and how busy it is.
#include "tputrain/workflow/serve.h"

namespace tputrain::workflow {
namespace {

// Status is a glance: a server that takes longer than this to answer is shown as such.
constexpr std::chrono::seconds kAskTimeout{15};

core::Result<http::Response> Get(http::Transport& transport, const std::string& url) {
  http::Request request;
  request.url = url;
  request.timeout = kAskTimeout;
  return transport.Send(request);
}

void AddDetail(VllmServerStatus& status, const std::string& line) {
  status.detail += (status.detail.empty() ? "" : "; ") + line;
}

}  // namespace

VllmServerStatus AskVllmServer(http::Transport& transport, const std::string& base_url) {
  VllmServerStatus status;
  auto health = Get(transport, base_url + "health");
  if (!health) {
    status.detail = "GET /health: " + health.error().message;
    return status;
  }
  const auto verdict = serving::VllmHealthOf(*health);
  status.state = verdict.state;
  status.detail = verdict.detail;
  if (status.state != serving::VllmState::kServing) return status;

  auto models = Get(transport, base_url + "v1/models");
  if (!models) {
    AddDetail(status, "GET /v1/models: " + models.error().message);
  } else if (auto listed = serving::ParseVllmModels(*models); listed) {
    status.models = std::move(*listed);
  } else {
    AddDetail(status, "GET /v1/models: " + listed.error().message);
  }
  auto metrics = Get(transport, base_url + "metrics");
  if (metrics && metrics->status != 200) {
    AddDetail(status, "GET /metrics: HTTP " + std::to_string(metrics->status));
  } else if (!metrics) {
    AddDetail(status, "GET /metrics: " + metrics.error().message);
  } else if (auto parsed = serving::ParseVllmMetrics(metrics->body); parsed) {
    status.metrics = *parsed;
  } else {
    AddDetail(status, parsed.error().message);
  }
  return status;
}

}  // namespace tputrain::workflow
