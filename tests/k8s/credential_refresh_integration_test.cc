// One transport stack for every API: a log follow through the API server's service proxy keeps
// going when the Kubernetes credential it started with is revoked (the credential is re-read
// from its source, a kubeconfig exec plugin here, as GKE tokens are re-read from ADC), and
// --verbose/--log-http show every Kubernetes and Ray call with the credentials redacted.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

#include "k8s/integration_plane.h"
#include "k8s/k8s_test_util.h"
#include "k8s/netns_ray_head.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

std::string NewToken(const std::string& prefix) {
  std::random_device random;
  return prefix + "-" + std::to_string(random()) + std::to_string(random());
}

// A kubeconfig whose user is an exec plugin printing whatever `token_file` holds, as a real
// plugin hands out its current token.
std::string ExecKubeconfig(const ApiServer& server, const std::string& ns, const std::string& token_file) {
  std::string plugin = server.dir() + "/token-plugin.sh";
  WriteTextFile(plugin,
                "#!/bin/sh\nprintf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
                "\"status\":{\"token\":\"%s\"}}' \"$(cat '" +
                    token_file + "')\"\n");
  std::filesystem::permissions(plugin, std::filesystem::perms::owner_all);
  std::string text = server.KubeconfigText("PLACEHOLDER", ns);
  const std::string token_line = "    token: PLACEHOLDER\n";
  text.replace(text.find(token_line), token_line.size(),
               "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: " + plugin +
                   "\n      interactiveMode: Never\n");
  std::string path = server.dir() + "/exec-kubeconfig-" + ns;
  WriteTextFile(path, text);
  return path;
}

ProcessOptions Tputrain(std::vector<std::string> args) {
  ProcessOptions options;
  options.argv = {TputrainBinary()};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.env = {{"RAY_ADDRESS", std::nullopt}, {"KUBECONFIG", std::nullopt}};
  return options;
}

TEST_CASE("a log follow through the service proxy outlives the credential it started with", "[integration]") {
  auto& plane = RayHeadPlane();
  auto& server = plane.server();
  NetnsRayHead head;
  std::string ns = server.NewNamespace("refresh");
  RunRayClusterAt(plane, ns, "ray", head.ip());
  const std::string first = NewToken("first");
  const std::string second = NewToken("second");
  server.SetExtraAdminTokens({first});
  const std::string token_file = server.dir() + "/current-token";
  WriteTextFile(token_file, first);
  const std::string kubeconfig = ExecKubeconfig(server, ns, token_file);

  auto submitted = RunProcess(
      Tputrain({"job", "submit", "--raycluster", "ray", "--kubeconfig", kubeconfig, "--no-wait", "--", "python", "-c",
                "import time\nfor i in range(25):\n    print('line', i, flush=True)\n    time.sleep(1)\n"
                "print('the end of the log')"}),
      std::chrono::seconds(120));
  INFO(submitted.err);
  REQUIRE(submitted.exit_code == 0);
  const std::string id = submitted.out.substr(0, submitted.out.find('\n'));

  ScopedProcess follow(Tputrain(
      {"job", "logs", "--follow", id, "--raycluster", "ray", "--kubeconfig", kubeconfig, "--verbose", "--log-http"}));
  REQUIRE(WaitFor([&] { return follow.ReadOut().find("line 2") != std::string::npos; }, std::chrono::seconds(60)));
  // Revoke the first token: the API server restarts without it (every connection drops) and the
  // plugin now hands out the second.
  WriteTextFile(token_file, second);
  server.SetExtraAdminTokens({second});
  REQUIRE(WaitFor([&] { return !follow.running(); }, std::chrono::seconds(120)));
  const std::string out = follow.ReadOut();
  const std::string err = follow.ReadErr();
  INFO(err);
  CHECK(follow.Stop() == 0);
  CHECK(out.find("line 24") != std::string::npos);
  CHECK(out.find("the end of the log") != std::string::npos);
  CHECK(out.find("line 1\nline 1\n") == std::string::npos);  // a reconnect replays nothing twice

  // The follow's calls, logged: the proxied Ray calls, the refused first token (401) and the
  // WebSocket upgrades, and never a token.
  const std::string proxy = server.server() + "/api/v1/namespaces/" + ns + "/services/ray-head-svc:8265/proxy/";
  CHECK(err.find("http: GET " + proxy + "api/jobs/" + id + " -> 200") != std::string::npos);
  CHECK(err.find(" -> 401") != std::string::npos);
  CHECK(err.find("ws: GET wss://" + proxy.substr(std::string("https://").size()) + "api/jobs/" + id +
                 "/logs/tail -> 101") != std::string::npos);
  CHECK(err.find("Authorization: REDACTED") != std::string::npos);
  for (const auto& token : {first, second}) {
    CHECK(out.find(token) == std::string::npos);
    CHECK(err.find(token) == std::string::npos);
  }
  server.SetExtraAdminTokens({});
}

TEST_CASE("apply --verbose --log-http logs each Kubernetes call, the credential redacted", "[integration]") {
  auto& server = ApiServer::Shared();
  std::string ns = server.NewNamespace("verbose");
  std::string kubeconfig = server.WriteKubeconfig("verbose-" + ns, server.admin_token(), ns);
  std::string manifest = server.dir() + "/verbose-" + ns + ".yaml";
  WriteTextFile(manifest, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: logged\ndata:\n  a: b\n");
  auto state_dir = server.dir() + "/state-" + ns;
  auto applied = RunProcess(Tputrain({"apply", "-f", manifest, "--kubeconfig", kubeconfig, "--state-dir", state_dir,
                                      "--verbose", "--log-http"}),
                            std::chrono::seconds(60));
  INFO(applied.err);
  CHECK(applied.exit_code == 0);
  CHECK(applied.err.find("http: GET " + server.server() + "/api/v1/namespaces/" + ns + "/configmaps/logged -> 404") !=
        std::string::npos);
  CHECK(applied.err.find("http: PATCH " + server.server() + "/api/v1/namespaces/" + ns +
                         "/configmaps/logged?fieldManager=") != std::string::npos);
  CHECK(applied.err.find("Authorization: REDACTED") != std::string::npos);
  CHECK(applied.err.find(server.admin_token()) == std::string::npos);
  CHECK(applied.out.find(server.admin_token()) == std::string::npos);
}

}  // namespace
}  // namespace tputrain::testing
