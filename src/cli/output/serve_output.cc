#include "output/serve_output.h"

#include "output/output.h"
#include "tputrain/core/json.h"

namespace tputrain::cli {
namespace {

using serving::EngineKind;

nlohmann::json AppliedJson(const workflow::ServeUpOutcome& up) {
  nlohmann::json json = nlohmann::json::array();
  for (const auto& result : up.applied) {
    json.push_back({{"kind", result.object.kind},
                    {"name", result.object.name},
                    {"action", k8s::ApplyActionName(result.action, up.dry_run)}});
  }
  return json;
}

nlohmann::json UpJson(const workflow::ServeUpOutcome& up) {
  nlohmann::json json = {{"engine", serving::EngineName(up.engine)},
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
  if (up.engine == EngineKind::kJetStream) json["leaderworkerset"] = up.workload;
  if (up.engine == EngineKind::kVllm) {
    json["hosts"] = up.hosts;
    json["why"] = up.why.empty() ? nlohmann::json(nullptr) : nlohmann::json(up.why);
  }
  if (up.sax) {
    json.update({{"model_path", up.sax->model_path},
                 {"checkpoint", up.sax->checkpoint},
                 {"replicas", up.sax->replicas},
                 {"active_replicas", up.active_replicas},
                 {"jobset", up.workload},
                 {"published", up.published}});
    if (!up.ingress.empty()) json["ingress"] = up.ingress;
  }
  if (up.would_publish) json["would_publish"] = core::ParseJson(up.would_publish->body, "").value_or(nlohmann::json());
  if (up.dry_run) json["objects"] = up.objects;
  return json;
}

void PrintDryRun(std::ostream& out, const workflow::ServeUpOutcome& up) {
  out << "# " << up.model << " on " << up.tpu_type << " (" << up.template_name;
  if (up.hosts > 0) out << ", " << up.hosts << (up.hosts == 1 ? " host" : " hosts");
  out << "): nothing applied\n";
  if (!up.why.empty()) out << "# why: " << up.why << "\n";
  for (const auto& result : up.applied) {
    out << "# " << result.object.Describe() << " " << k8s::ApplyActionName(result.action, true) << "\n";
  }
  if (up.would_publish) {
    out << "# would publish: " << (up.endpoint.empty() ? "" : "POST " + up.would_publish->url + " ")
        << up.would_publish->body << "\n";
  }
  for (const auto& object : up.objects) out << "---\n" << ToYaml(object);
}

}  // namespace

void PrintServeUp(Context& context, const workflow::ServeUpOutcome& up) {
  PrintResult(context, UpJson(up), [&](std::ostream& out) {
    if (up.dry_run) return PrintDryRun(out, up);
    for (const auto& result : up.applied) {
      out << result.object.Describe() << " " << k8s::ApplyActionName(result.action, false) << "\n";
    }
    if (!up.serving) return;
    if (!up.why.empty()) out << "why " << up.tpu_type << ": " << up.why << "\n";
    out << "Serving " << up.model << " " << up.placement << ".\nAsk it:  " << up.ask << "\nEndpoint: " << up.endpoint
        << up.endpoint_note << "\n";
    if (!up.ingress.empty()) out << "LoadBalancer: http://" << up.ingress << ":8888/\n";
  });
}

void PrintServeDown(Context& context, const workflow::ServeDownOutcome& down) {
  nlohmann::json deleted = nlohmann::json::array();
  for (const auto& result : down.deleted) {
    deleted.push_back({{"kind", result.object.kind}, {"name", result.object.name}, {"deleted", result.existed}});
  }
  nlohmann::json json = deleted;
  if (down.engine == EngineKind::kSaxml) {
    json = {{"model", down.model}, {"unpublished", down.unpublished}, {"deleted", deleted}};
    if (!down.unpublish_note.empty()) json["note"] = down.unpublish_note;
    if (down.would_unpublish)
      json["would_send"] = {{"method", down.would_unpublish->method}, {"url", down.would_unpublish->url}};
  }
  PrintResult(context, json, [&](std::ostream& out) {
    if (down.would_unpublish) {
      out << "would send: " << down.would_unpublish->method << " " << down.would_unpublish->url << " "
          << down.would_unpublish->body << "\n";
    } else if (down.engine == EngineKind::kSaxml) {
      out << down.model << " " << (down.unpublished ? "unpublished" : down.unpublish_note) << "\n";
    }
    for (const auto& result : down.deleted) {
      out << result.object.Describe() << " " << (result.existed ? "deleted" : "not found") << "\n";
    }
  });
}

}  // namespace tputrain::cli
