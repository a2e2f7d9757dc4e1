// The serve commands' --format json|yaml, their contract: what serve up and serve down did, what
// serve status found, what serve generate asked and got, and Saxml's cell (serve list, unpublish).
#include "json_numbers.h"
#include "tputrain/core/json.h"
#include "tputrain/workflow/serve_ask.h"
#include "tputrain/workflow/serve_up.h"

namespace tputrain::workflow {
namespace {

using nlohmann::json;
using serving::EngineKind;

json AppliedJson(const ServeUpOutcome& up) {
  json applied = json::array();
  for (const auto& result : up.applied) {
    applied.push_back({{"kind", result.object.kind},
                       {"name", result.object.name},
                       {"action", k8s::ApplyActionName(result.action, up.dry_run)}});
  }
  return applied;
}

json ServerJson(const VllmServerStatus& server) {
  json out = {{"state", serving::VllmStateName(server.state)}, {"models", server.models}};
  if (!server.detail.empty()) out["detail"] = server.detail;
  if (server.metrics) {
    const auto& metrics = *server.metrics;
    json values = json::object();
    for (const auto& [key, value] : {std::pair{"num_requests_running", metrics.requests_running},
                                     std::pair{"num_requests_waiting", metrics.requests_waiting},
                                     std::pair{"kv_cache_usage_perc", metrics.kv_cache_usage},
                                     std::pair{"time_to_first_token_mean_s", metrics.time_to_first_token_mean_s},
                                     std::pair{"prompt_tokens_total", metrics.prompt_tokens},
                                     std::pair{"generation_tokens_total", metrics.generation_tokens},
                                     std::pair{"request_success_total", metrics.requests_finished}}) {
      if (value) values[key] = Rounded(*value);
    }
    out["metrics"] = values;
  }
  return out;
}

}  // namespace

json ToJson(const ServeUpOutcome& up) {
  json out = {{"engine", serving::EngineName(up.engine)},
              {"model", up.model},
              {"tpu_type", up.tpu_type},
              {"template", up.template_name},
              {"namespace", up.ns},
              {"workload", up.workload_kind + "/" + up.workload},
              {"service", up.service},
              {"endpoint", up.endpoint},
              {"serving", up.serving},
              {"waited_s", Seconds(up.waited)},
              {"applied", AppliedJson(up)},
              {"dry_run", up.dry_run}};
  if (up.engine == EngineKind::kJetStream) out["leaderworkerset"] = up.workload;
  if (up.engine == EngineKind::kVllm) {
    out["hosts"] = up.hosts;
    out["why"] = up.why.empty() ? json(nullptr) : json(up.why);
  }
  if (up.sax) {
    out.update({{"model_path", up.sax->model_path},
                {"checkpoint", up.sax->checkpoint},
                {"replicas", up.sax->replicas},
                {"active_replicas", up.active_replicas},
                {"jobset", up.workload},
                {"published", up.published}});
    if (!up.ingress.empty()) out["ingress"] = up.ingress;
  }
  if (up.would_publish) out["would_publish"] = core::ParseJson(up.would_publish->body, "").value_or(json());
  if (up.dry_run) out["objects"] = up.objects;
  return out;
}

json ToJson(const ServeDownOutcome& down) {
  json deleted = json::array();
  for (const auto& result : down.deleted) {
    deleted.push_back({{"kind", result.object.kind}, {"name", result.object.name}, {"deleted", result.existed}});
  }
  if (down.engine != EngineKind::kSaxml) return deleted;
  json out = {{"model", down.model}, {"unpublished", down.unpublished}, {"deleted", deleted}};
  if (!down.unpublish_note.empty()) out["note"] = down.unpublish_note;
  if (down.would_unpublish) {
    out["would_send"] = {{"method", down.would_unpublish->method}, {"url", down.would_unpublish->url}};
  }
  return out;
}

json ToJson(const ServeStatusOutcome& status) {
  json out = json::array();
  for (const auto& row : status.rows) {
    out.push_back({{"kind", row.kind},
                   {"engine", serving::EngineName(row.engine)},
                   {"name", row.name},
                   {"namespace", status.ns},
                   {"available", row.available},
                   {"pods_ready", row.pods_ready},
                   {"pods", row.pods},
                   {"service", row.service},
                   {"endpoint", row.endpoint},
                   {"created", row.created}});
    if (row.server) out.back()["server"] = ServerJson(*row.server);
  }
  return out;
}

json ToJson(const ServeAskPlan& plan, const ServeAskOutcome& asked, bool dry_run) {
  if (dry_run) {
    json out = {{"dry_run", true}, {"requests", json::array()}};
    for (const auto& call : asked.planned) {
      json entry = {{"method", call.method}, {"url", call.url}};
      if (!call.body.empty()) entry["body"] = core::ParseJson(call.body, "").value_or(call.body);
      out["requests"].push_back(entry);
    }
    return out;
  }
  const auto& request = plan.request;
  const auto& generated = asked.generated;
  json out = {{"engine", asked.engine},   {"service", asked.service}, {"namespace", asked.ns},
              {"stream", request.stream}, {"text", generated.text},   {"total_s", Rounded(Seconds(generated.total))}};
  if (request.messages.empty()) out["prompt"] = request.prompt;
  for (const auto& message : request.messages) {
    out["messages"].push_back({{"role", message.role}, {"content", message.content}});
  }
  if (asked.takes_max_tokens) out["max_tokens"] = request.max_tokens;
  if (request.temperature) out["temperature"] = *request.temperature;
  if (!generated.model.empty()) out["model"] = generated.model;
  if (const auto& usage = generated.usage) {
    out["usage"] = {{"prompt_tokens", usage->prompt_tokens},
                    {"completion_tokens", usage->completion_tokens},
                    {"total_tokens", usage->total_tokens}};
  }
  if (request.stream) out["pieces"] = generated.pieces;
  if (generated.time_to_first_token) out["time_to_first_token_s"] = Rounded(Seconds(*generated.time_to_first_token));
  if (generated.tokens_per_second) out["tokens_per_s"] = Rounded(*generated.tokens_per_second);
  return out;
}

json ToJson(const std::vector<SaxModelState>& states) {
  json out = json::array();
  for (const auto& [id, found] : states) {
    if (!found) {
      out.push_back({{"model", id}, {"published", false}});
      continue;
    }
    out.push_back({{"model", id},
                   {"published", true},
                   {"model_path", found->model_path},
                   {"checkpoint", found->checkpoint},
                   {"max_replicas", found->max_replicas},
                   {"active_replicas", found->active_replicas}});
  }
  return out;
}

json ToJson(const std::vector<SaxUnpublished>& done) {
  json out = json::array();
  for (const auto& [id, unpublished, planned] : done) {
    if (planned) {
      out.push_back({{"model", id}, {"dry_run", true}, {"request", planned->method + " " + planned->url}});
    } else {
      out.push_back({{"model", id}, {"unpublished", unpublished}});
    }
  }
  return out;
}

}  // namespace tputrain::workflow
