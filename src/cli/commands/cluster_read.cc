// tputrain cluster describe|list|get-credentials: reads, nothing recorded.
#include "commands/cluster_read.h"

#include "commands/provision_common.h"
#include "output/output.h"
#include "tputrain/workflow/reads.h"

namespace tputrain::cli {

core::Result<int> RunClusterDescribe(const std::string& name, Context& context) {
  auto clusters = workflow::ReadClusters(context.stack(), {name});
  if (!clusters) return core::Fail(clusters.error());
  const auto& raw = clusters->front().raw;
  PrintResult(context, raw, [&](std::ostream& out) { out << ToYaml(raw); });
  return core::kExitOk;
}

core::Result<int> RunClusterList(Context& context) {
  auto clusters = workflow::ReadClusters(context.stack(), {});
  if (!clusters) return core::Fail(clusters.error());
  nlohmann::json json = nlohmann::json::array();
  std::vector<std::vector<std::string>> rows;
  for (const auto& cluster : *clusters) {
    json.push_back(cluster.raw);
    rows.push_back({cluster.name, cluster.location, cluster.current_master_version, cluster.endpoint, cluster.status});
  }
  PrintResult(context, json, [&](std::ostream& out) {
    PrintListTable(context, out, {"name", "location", "master_version", "endpoint", "status"}, rows,
                   "No clusters in " + workflow::ListedWhere(context.stack()) + ".");
  });
  return core::kExitOk;
}

core::Result<int> RunGetCredentials(const std::string& name, const std::string& kubeconfig, bool token_exec,
                                    Context& context) {
  auto written = workflow::GetClusterCredentials(context.stack(), {name, kubeconfig, token_exec});
  if (!written) return core::Fail(written.error());
  context.reporter().Info("kubeconfig entry " + written->context +
                          (context.global.dry_run ? " would be written to " : " written to ") + written->path);
  PrintResult(context, {{"context", written->context}, {"kubeconfig", written->path}, {"server", written->server}},
              [&](std::ostream& out) { out << "context " << written->context << " in " << written->path << "\n"; });
  return core::kExitOk;
}

}  // namespace tputrain::cli
