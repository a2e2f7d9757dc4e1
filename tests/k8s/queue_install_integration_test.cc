// tputrain queue create on a cluster without Kueue: the release manifest (here from a local file, as
// air-gapped sites install it: Kueue's own CRDs from its module, its namespace and manager
// Deployment, which the real Deployment controller, scheduler and kwok bring up) is installed and
// recorded; `cleanup` removes the install that run made, and never one a run found.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "k8s/integration_plane.h"
#include "k8s/k8s_test_util.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

using nlohmann::json;

std::vector<std::string> KueueCrdFiles() {
  std::vector<std::string> files;
  for (const auto& file : std::filesystem::directory_iterator(K8sPeerDir() + "/manifests/kueue")) {
    if (file.path().filename().string().starts_with("kueue.x-k8s.io_")) files.push_back(file.path().string());
  }
  return files;
}

// The shape of Kueue's release manifest: its CRDs (as released), its namespace, an account and the
// manager Deployment (no webhooks: no manager answers them here).
std::string KueueManifest() {
  std::string manifest;
  for (const auto& file : KueueCrdFiles()) manifest += ReadTextFile(file) + "\n---\n";
  return manifest +
         "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kueue-system\n---\n"
         "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: kueue-controller-manager\n  namespace: "
         "kueue-system\n"
         "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: kueue-controller-manager\n"
         "  namespace: kueue-system\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n"
         "      control-plane: controller-manager\n  template:\n    metadata:\n      labels:\n"
         "        control-plane: controller-manager\n    spec:\n      serviceAccountName: kueue-controller-manager\n"
         "      containers:\n      - name: manager\n        image: registry.k8s.io/kueue/kueue:v0.17.1\n";
}

TEST_CASE("queue create installs Kueue from its manifest, recorded; cleanup removes what the run made",
          "[integration]") {
  auto& server = IntegrationPlane().server();
  const std::string ns = server.NewNamespace("kueue-install");
  const std::string kubeconfig = server.WriteKubeconfig("queue-install-" + ns, server.admin_token(), ns);
  const std::string state = server.dir() + "/state-" + ns;
  const std::string manifest = server.dir() + "/kueue-" + ns + ".yaml";
  std::ofstream(manifest) << KueueManifest();
  auto tputrain = [&](std::vector<std::string> args) {
    ProcessOptions options;
    options.argv = {TputrainBinary()};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.env = {{"KUBECONFIG", kubeconfig}, {"XDG_STATE_HOME", state}, {"TPUTRAIN_RUN", std::nullopt}};
    return RunProcess(options, std::chrono::seconds(180));
  };
  const std::string crd = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusterqueues.kueue.x-k8s.io";
  REQUIRE(server.admin().Send("GET", crd)->status == 404);

  auto created = tputrain({"queue", "create", "made", "--tpu-type", "v6e-16", "--chips", "16", "--kueue-manifest",
                           manifest, "--run", "kueue-made", "--timeout", "120s", "--format", "json"});
  INFO(created.out << created.err);
  REQUIRE(created.exit_code == 0);
  auto outcome = json::parse(created.out);
  CHECK(outcome["kueue"] == "installed");
  CHECK(outcome["kueue_version"] == "v0.17.1");
  // The objects are Kueue's v1beta2 ones, taken by its CRDs' schemas.
  auto cq = server.admin().GetJson("/apis/kueue.x-k8s.io/v1beta2/clusterqueues/made", "");
  REQUIRE(cq);
  const auto& quota = (*cq)["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0];
  CHECK(quota["name"] == "google.com/tpu");
  CHECK((quota["nominalQuota"].is_string() ? quota["nominalQuota"].get<std::string>() : quota["nominalQuota"].dump()) ==
        "16");

  // Recorded: the run made Kueue's CRDs, namespace and Deployment, so it owns them.
  auto shown = tputrain({"runs", "show", "--run", "kueue-made", "--format", "json"});
  REQUIRE(shown.exit_code == 0);
  const auto ledger = json::parse(shown.out);
  std::map<std::string, int> owned_by_kind;
  for (const auto& entry : ledger["entries"]) {
    if (entry["owned"] == true) ++owned_by_kind[entry["details"]["kind"].get<std::string>()];
  }
  CHECK(owned_by_kind["CustomResourceDefinition"] == static_cast<int>(KueueCrdFiles().size()));
  CHECK(owned_by_kind["Deployment"] == 1);
  CHECK(owned_by_kind["ClusterQueue"] == 1);

  // A second run finds that Kueue: its queue is its own, the install is not.
  auto found = tputrain(
      {"queue", "create", "found", "--tpu-type", "v6e-16", "--chips", "8", "--run", "kueue-found", "--format", "json"});
  INFO(found.err);
  REQUIRE(found.exit_code == 0);
  CHECK(json::parse(found.out)["kueue"] == "found");
  auto cleaned_found = tputrain({"cleanup", "--run", "kueue-found", "--yes"});
  INFO(cleaned_found.err);
  REQUIRE(cleaned_found.exit_code == 0);
  CHECK(server.admin().Send("GET", "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/found")->status == 404);
  CHECK(server.admin().Send("GET", crd)->status == 200);
  CHECK(server.admin().Send("GET", "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/made")->status == 200);

  // The run that installed it removes its queue and the install.
  auto cleaned = tputrain({"cleanup", "--run", "kueue-made", "--yes"});
  INFO(cleaned.out << cleaned.err);
  REQUIRE(cleaned.exit_code == 0);
  auto gone = [&](const std::string& path) {
    return WaitFor([&] { return server.admin().Send("GET", path)->status == 404; }, std::chrono::seconds(60));
  };
  CHECK(gone("/apis/kueue.x-k8s.io/v1beta2/clusterqueues/made"));
  CHECK(gone(crd));
  CHECK(gone("/apis/apps/v1/namespaces/kueue-system/deployments/kueue-controller-manager"));
}

}  // namespace
}  // namespace tputrain::testing
