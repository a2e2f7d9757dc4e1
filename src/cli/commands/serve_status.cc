// tputrain serve status: the served models of a namespace, whatever their engine.
#include <cmath>

#include "commands/serve_flags.h"
#include "output/output.h"
#include "tputrain/core/text.h"
#include "tputrain/workflow/serve.h"

namespace tputrain::cli {
namespace {

struct StatusFlags {
  KubeAccessFlags access;
};

// A gauge for the table: a whole number, or "-" where the server exports none.
std::string Count(const std::optional<double>& value) {
  return value ? std::to_string(static_cast<long long>(std::llround(*value))) : "-";
}

// The table's server columns: state, model, running, waiting, KV cache.
std::vector<std::string> ServerCells(const std::optional<workflow::VllmServerStatus>& server) {
  if (!server) return {"-", "-", "-", "-", "-"};
  std::vector<std::string> cells = {std::string(serving::VllmStateName(server->state)),
                                    server->models.empty() ? "-" : server->models.front()};
  const auto metrics = server->metrics.value_or(serving::VllmMetrics{});
  cells.push_back(Count(metrics.requests_running));
  cells.push_back(Count(metrics.requests_waiting));
  cells.push_back(metrics.kv_cache_usage ? Count(*metrics.kv_cache_usage * 100) + "%" : "-");
  return cells;
}

core::Result<int> RunStatus(const StatusFlags& flags, Context& context) {
  auto status = workflow::ServeStatus(context.stack(), {flags.access});
  if (!status) return core::Fail(status.error());
  const auto& [ns, rows] = *status;
  std::vector<std::vector<std::string>> table;
  std::vector<std::string> notes;  // why a server does not serve, or what it did not say
  for (const auto& row : rows) {
    std::vector<std::string> cells = {row.kind + "/" + row.name, row.available ? "yes" : "no",
                                      std::to_string(row.pods_ready) + "/" + std::to_string(row.pods)};
    for (auto& cell : ServerCells(row.server)) cells.push_back(std::move(cell));
    cells.push_back(row.service.empty() ? "-" : row.service);
    cells.push_back(row.created);
    table.push_back(std::move(cells));
    if (row.server && !row.server->detail.empty()) notes.push_back(row.name + ": " + row.server->detail);
  }
  PrintResult(context, workflow::ToJson(*status), [&](std::ostream& out) {
    if (table.empty()) {
      out << "Nothing served in namespace " << ns << ".\n";
      return;
    }
    PrintTable(
        out,
        {"workload", "available", "pods", "server", "model", "running", "waiting", "kv cache", "service", "created"},
        table);
    for (const auto& note : notes) out << core::PrintableText(note) << "\n";  // a server's words
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
