#include "output/serve_output.h"

#include "output/output.h"

namespace tputrain::cli {
namespace {

using serving::EngineKind;

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
  PrintResult(context, workflow::ToJson(up), [&](std::ostream& out) {
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
  PrintResult(context, workflow::ToJson(down), [&](std::ostream& out) {
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
