// tputrain cluster describe|list|get-credentials: reads, nothing recorded.
#include "commands/cluster_read.h"

#include "commands/provision_common.h"
#include "tputrain/cli/output.h"
#include "tputrain/gcp/container/client.h"
#include "tputrain/workflow/cluster_access.h"

namespace tputrain::cli {

core::Result<int> RunClusterDescribe(const std::string& name, Context& context) {
  auto ref = ClusterRefOf(context, name, "NAME");
  if (!ref) return core::Fail(ref.error());
  return RunRead(context,
                 [&](http::Transport& transport, const workflow::ApiEndpoints& endpoints) -> core::Result<int> {
                   auto cluster = gcp::container::Client(transport, endpoints.container).GetCluster(*ref);
                   if (!cluster) return core::Fail(cluster.error());
                   PrintResult(context, cluster->raw, [&](std::ostream& out) { out << ToYaml(cluster->raw); });
                   return core::kExitOk;
                 });
}

core::Result<int> RunClusterList(Context& context) {
  auto project = RequireSetting(context, "project");
  if (!project) return core::Fail(project.error());
  auto location = LocationOrAll(context);
  if (!location) return core::Fail(location.error());
  return RunRead(
      context, [&](http::Transport& transport, const workflow::ApiEndpoints& endpoints) -> core::Result<int> {
        auto clusters = gcp::container::Client(transport, endpoints.container).ListClusters({*project, *location});
        if (!clusters) return core::Fail(clusters.error());
        nlohmann::json json = nlohmann::json::array();
        std::vector<std::vector<std::string>> rows;
        for (const auto& cluster : *clusters) {
          json.push_back(cluster.raw);
          rows.push_back(
              {cluster.name, cluster.location, cluster.current_master_version, cluster.endpoint, cluster.status});
        }
        PrintResult(context, json, [&](std::ostream& out) {
          PrintTable(out, {"name", "location", "master_version", "endpoint", "status"}, rows);
        });
        return core::kExitOk;
      });
}

core::Result<int> RunGetCredentials(const std::string& name, const std::string& kubeconfig, bool token_exec,
                                    Context& context) {
  auto ref = ClusterRefOf(context, name, "NAME");
  if (!ref) return core::Fail(ref.error());
  return RunRead(
      context, [&](http::Transport& transport, const workflow::ApiEndpoints& endpoints) -> core::Result<int> {
        auto written = workflow::WriteClusterCredentials(transport, endpoints.container, *ref, kubeconfig, context.env,
                                                         token_exec, context.global.dry_run);
        if (!written) return core::Fail(written.error());
        context.reporter().Info("kubeconfig entry " + written->context +
                                (context.global.dry_run ? " would be written to " : " written to ") + written->path);
        PrintResult(
            context, {{"context", written->context}, {"kubeconfig", written->path}, {"server", written->server}},
            [&](std::ostream& out) { out << "context " << written->context << " in " << written->path << "\n"; });
        return core::kExitOk;
      });
}

}  // namespace tputrain::cli
