// tputrain serve status: the served models of a namespace, whatever their engine.
#include "commands/serve_flags.h"
#include "tputrain/cli/output.h"
#include "tputrain/workflow/serve.h"

namespace tputrain::cli {
namespace {

struct StatusFlags {
  KubeAccessFlags access;
};

core::Result<int> RunStatus(const StatusFlags& flags, Context& context) {
  auto connection = ConnectCluster(flags.access, context);
  if (!connection) return core::Fail(connection.error());
  k8s::Client& client = *(*connection)->client;
  const std::string ns = flags.access.ns.empty() ? client.default_namespace() : flags.access.ns;
  auto rows = workflow::ServeStatus(client, ns);
  if (!rows) return core::Fail(rows.error());
  nlohmann::json json = nlohmann::json::array();
  std::vector<std::vector<std::string>> table;
  for (const auto& row : *rows) {
    json.push_back({{"kind", row.kind},
                    {"name", row.name},
                    {"namespace", ns},
                    {"available", row.available},
                    {"pods_ready", row.pods_ready},
                    {"pods", row.pods},
                    {"service", row.service},
                    {"endpoint", row.endpoint},
                    {"created", row.created}});
    table.push_back({row.kind + "/" + row.name, row.available ? "yes" : "no",
                     std::to_string(row.pods_ready) + "/" + std::to_string(row.pods),
                     row.service.empty() ? "-" : row.service, row.created});
  }
  PrintResult(context, json, [&](std::ostream& out) {
    if (table.empty()) {
      out << "Nothing served in namespace " << ns << ".\n";
      return;
    }
    PrintTable(out, {"workload", "available", "pods", "service", "created"}, table);
  });
  return core::kExitOk;
}

}  // namespace

void AddServeStatusCommand(CLI::App& serve, Context& context) {
  auto status_flags = std::make_shared<StatusFlags>();
  auto* status = serve.add_subcommand("status", "The served models of a namespace: ready pods and where to ask them");
  AddKubeAccessFlags(*status, status_flags->access);
  status->footer("Example:\n  tputrain serve status --cluster ray-tpu --location us-east5-b --format json");
  status->callback([status_flags, &context] { context.outcome = RunStatus(*status_flags, context); });
}

}  // namespace tputrain::cli
