// tputrain operators check | install against a real kube-apiserver: the release manifest from a
// local file (as air-gapped sites do), applied with its CRD first, recorded in the run ledger,
// and waited for until its controller Deployment is available (the real Deployment controller,
// scheduler and kwok bring it up; the operator's own controller is the control plane's).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "k8s/integration_plane.h"
#include "k8s/k8s_test_util.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

ProcessResult Tputrain(const std::vector<std::string>& args, const std::string& kubeconfig, const std::string& state) {
  ProcessOptions options;
  options.argv = {TputrainBinary()};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.env = {{"KUBECONFIG", kubeconfig}, {"XDG_STATE_HOME", state}, {"TPUTRAIN_RUN", std::nullopt}};
  return RunProcess(options, std::chrono::seconds(120));
}

TEST_CASE("operators install lws from a local release manifest: CRD first, recorded, waited until available",
          "[integration]") {
  auto& server = IntegrationPlane().server();
  // A namespace of the operator's own, which the install creates.
  const std::string ns = server.NewNamespace("lws") + "-system";
  const std::string kubeconfig = server.WriteKubeconfig("operators-" + ns, server.admin_token(), ns);
  const std::string state = server.dir() + "/state-" + ns;
  const std::string manifest = server.dir() + "/lws-" + ns + ".yaml";
  std::ofstream(manifest) << LwsManifest(ns);

  const std::string deployment = "/apis/apps/v1/namespaces/" + ns + "/deployments/lws-controller-manager";
  ProcessOptions options;
  options.argv = {TputrainBinary(), "operators", "install",  "lws",  "--manifest", manifest,
                  "--run",          "op-run",    "--format", "json", "--timeout",  "60s"};
  options.env = {{"KUBECONFIG", kubeconfig}, {"XDG_STATE_HOME", state}};
  ScopedProcess install(options);
  // The controller comes up: the Deployment and ReplicaSet controllers, the scheduler and kwok make
  // its Deployment report an available replica.
  REQUIRE(WaitFor([&] { return !install.running(); }, std::chrono::seconds(60)));
  INFO(install.ReadOut() << install.ReadErr());
  REQUIRE(install.Stop() == 0);
  auto json = nlohmann::json::parse(install.ReadOut());
  CHECK(json["version"] == "v0.10.0");
  CHECK(json["ready"] == nlohmann::json::array({ns + "/lws-controller-manager"}));

  // Recorded in the run ledger: what the run made is owned, the CRD that was there is not.
  auto shown = Tputrain({"runs", "show", "--run", "op-run", "--format", "json"}, kubeconfig, state);
  REQUIRE(shown.exit_code == 0);
  std::map<std::string, bool> owned;
  const auto ledger = nlohmann::json::parse(shown.out);
  for (const auto& entry : ledger["entries"]) {
    owned[entry["details"]["kind"].get<std::string>()] = entry["owned"].get<bool>();
  }
  CHECK(owned ==
        std::map<std::string, bool>{
            {"CustomResourceDefinition", false}, {"Namespace", true}, {"ServiceAccount", true}, {"Deployment", true}});

  // A server dry run of the same manifest changes nothing (a first install's dry run would be
  // refused for objects in the namespace it creates, as kubectl's server dry run is).
  const std::string before = server.admin().GetJson(deployment, "")->at("metadata").value("resourceVersion", "");
  auto dry = Tputrain({"operators", "install", "lws", "--manifest", manifest, "--dry-run", "--format", "json"},
                      kubeconfig, state);
  INFO(dry.out << dry.err);
  REQUIRE(dry.exit_code == 0);
  auto dry_json = nlohmann::json::parse(dry.out);
  REQUIRE(dry_json["applied"].size() == 4);
  CHECK(dry_json["applied"][0]["kind"] == "CustomResourceDefinition");
  for (const auto& applied : dry_json["applied"]) CHECK(applied["action"] == "unchanged (server dry run)");
  CHECK(dry_json["ready"].empty());
  CHECK(server.admin().GetJson(deployment, "")->at("metadata").value("resourceVersion", "") == before);

  auto check = Tputrain({"operators", "check", "lws", "kuberay", "jobset"}, kubeconfig, state);
  INFO(check.out << check.err);
  CHECK(check.exit_code == 0);
  CHECK(check.out.find("missing") == std::string::npos);
}

TEST_CASE("operators: KubeRay is a GKE add-on, unknown names are usage errors", "[integration]") {
  auto& server = ApiServer::Shared();
  const std::string kubeconfig = server.WriteKubeconfig("operators-usage", server.admin_token());
  const std::string state = server.dir() + "/state-operators-usage";
  auto kuberay = Tputrain({"operators", "install", "kuberay"}, kubeconfig, state);
  CHECK(kuberay.exit_code == 2);
  CHECK(kuberay.err.find("--update-addons=RayOperator=ENABLED") != std::string::npos);
  auto unknown = Tputrain({"operators", "check", "volcano"}, kubeconfig, state);
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("expected one of kuberay, lws, jobset, got 'volcano'") != std::string::npos);
  auto unreadable =
      Tputrain({"operators", "install", "jobset", "--manifest", server.dir() + "/none.yaml"}, kubeconfig, state);
  CHECK(unreadable.exit_code == 2);
  CHECK(unreadable.err.find("--manifest: cannot read") != std::string::npos);
}

}  // namespace
}  // namespace tputrain::testing
