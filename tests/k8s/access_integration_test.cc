// Reaching the API server: TLS verified against the cluster's CA, client certificates, exec
// credential plugins, GKE entries served from an injected Google token, and kubectl accepting
// the kubeconfig entry tputrain writes.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "k8s/k8s_test_util.h"
#include "tputrain/k8s/kubeconfig_writer.h"

namespace tputrain::testing {
namespace {

std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// POST selfsubjectreviews: who the server thinks we are.
std::string WhoAmI(k8s::Client& client) {
  auto response = client.Send("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                              R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})");
  if (!response) return "error: " + response.error().message;
  auto json = nlohmann::json::parse(response->body, nullptr, false);
  if (!response->ok() || !json.is_object()) return "HTTP " + std::to_string(response->status);
  return json["status"]["userInfo"].value("username", "");
}

TEST_CASE("TLS is verified against the cluster's CA: another CA or the system store fails", "[integration]") {
  auto& server = ApiServer::Shared();
  std::string good = server.KubeconfigText(server.admin_token());
  CHECK(WhoAmI(*ConnectWith(good)->client) == "test-admin");

  std::string wrong = ReplaceAll(good, k8s::EncodeBase64(server.ca_pem()), k8s::EncodeBase64(server.other_ca_pem()));
  auto connection = ConnectWith(wrong);
  auto response = connection->client->Send("GET", "/api");
  REQUIRE_FALSE(response);
  INFO(response.error().message);
  CHECK(response.error().kind == core::ErrorKind::kPermissionDenied);
  CHECK(response.error().message.find("certificate") != std::string::npos);

  std::string no_ca =
      ReplaceAll(good, "    certificate-authority-data: " + k8s::EncodeBase64(server.ca_pem()) + "\n", "");
  REQUIRE(no_ca != good);
  auto system_store = ConnectWith(no_ca)->client->Send("GET", "/api");
  CHECK_FALSE(system_store);

  SECTION("insecure-skip-tls-verify is refused unless asked for") {
    std::string insecure = ReplaceAll(no_ca, "    server:", "    insecure-skip-tls-verify: true\n    server:");
    auto refused = k8s::ClusterAccessFromKubeconfigText(insecure, "", {});
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("--insecure-skip-tls-verify") != std::string::npos);
    auto allowed = k8s::ClusterAccessFromKubeconfigText(insecure, "", {"", "", true});
    REQUIRE(allowed);
    core::Env env;
    core::SystemClock clock;
    auto insecure_connection = k8s::Connect(*allowed, {&env, &clock, {}}, BareTransport);
    REQUIRE(insecure_connection);
    CHECK(WhoAmI(*(*insecure_connection)->client) == "test-admin");
  }
}

TEST_CASE("a client certificate from the kubeconfig authenticates", "[integration]") {
  auto& server = ApiServer::Shared();
  auto connection = ConnectWith(server.KubeconfigText("", "default", /*client_cert=*/true));
  CHECK(WhoAmI(*connection->client) == "cert-admin");
}

TEST_CASE("an exec credential plugin runs as the kubeconfig says", "[integration]") {
  auto& server = ApiServer::Shared();
  std::string plugin = server.dir() + "/token-plugin.sh";
  std::string info_file = server.dir() + "/exec-info.json";
  WriteTextFile(plugin,
                "#!/bin/sh\nprintf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$INFO_FILE\"\n"
                "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\","
                "\"status\":{\"token\":\"%s\"}}' \"$1\"\n");
  chmod(plugin.c_str(), 0755);
  std::string kubeconfig = ReplaceAll(server.KubeconfigText("unused"), "    token: unused\n",
                                      "    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n"
                                      "      command: " +
                                          plugin + "\n      args: [\"" + server.admin_token() +
                                          "\"]\n      env:\n      - {name: INFO_FILE, value: " + info_file +
                                          "}\n      provideClusterInfo: true\n");
  auto connection = ConnectWith(kubeconfig);
  CHECK(WhoAmI(*connection->client) == "test-admin");
  auto info = nlohmann::json::parse(ReadTextFile(info_file));
  CHECK(info["kind"] == "ExecCredential");
  CHECK(info["spec"]["cluster"]["server"] == server.server());
}

TEST_CASE("a GKE kubeconfig entry is served from the injected Google token, and kubectl accepts it", "[integration]") {
  auto& server = ApiServer::Shared();
  std::string path = server.dir() + "/gke-kubeconfig";
  k8s::KubeconfigEntry entry;
  entry.name = "gke_p_us-east5-b_ray";
  entry.server = server.server();
  entry.ca_data = k8s::EncodeBase64(server.ca_pem());
  REQUIRE(k8s::WriteKubeconfigEntry(path, entry));
  struct stat info {};
  REQUIRE(stat(path.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);

  int calls = 0;
  core::Env env;
  core::SystemClock clock;
  auto access = k8s::LoadClusterAccess({path, "", false}, env);
  REQUIRE(access);
  REQUIRE(access->exec);
  CHECK(access->exec->command == "gke-gcloud-auth-plugin");
  auto connection = k8s::Connect(*access,
                                 {&env, &clock,
                                  [&]() -> core::Result<std::string> {
                                    ++calls;
                                    return server.google_token();
                                  }},
                                 BareTransport);
  REQUIRE(connection);
  CHECK(WhoAmI(*(*connection)->client) == "someone@example.com");
  CHECK(calls >= 1);

  // The real kubectl with the real gke-gcloud-auth-plugin, which asks gcloud for the token;
  // gcloud reads it from CLOUDSDK_AUTH_ACCESS_TOKEN_FILE.
  std::string token_file = server.dir() + "/google-token";
  WriteTextFile(token_file, server.google_token() + "\n");
  std::string home = server.dir() + "/kubectl-home";
  ProcessOptions kubectl;
  kubectl.argv = {"kubectl", "--kubeconfig", path, "get", "ns", "-o", "name"};
  kubectl.env = {{"HOME", home},
                 {"CLOUDSDK_CONFIG", home + "/gcloud"},
                 {"CLOUDSDK_AUTH_ACCESS_TOKEN_FILE", token_file},
                 {"KUBECONFIG", std::nullopt}};
  auto result = RunProcess(kubectl, std::chrono::seconds(120));
  INFO(result.err);
  CHECK(result.exit_code == 0);
  CHECK(result.out.find("namespace/default") != std::string::npos);

  // A second entry is added beside the first and becomes current; kubectl switches to it.
  k8s::KubeconfigEntry second = entry;
  second.name = "gke_p_us-east5-b_other";
  second.auth = k8s::KubeconfigEntry::Auth::kTputrainTokenExec;
  REQUIRE(k8s::WriteKubeconfigEntry(path, second));
  auto reread = k8s::LoadClusterAccess({path, "gke_p_us-east5-b_ray", false}, env);
  REQUIRE(reread);
  CHECK(reread->exec->command == "gke-gcloud-auth-plugin");
  auto current = k8s::LoadClusterAccess({path, "", false}, env);
  REQUIRE(current);
  CHECK(current->context == "gke_p_us-east5-b_other");
  CHECK(current->exec->command == "tputrain");
  CHECK(current->exec->args == k8s::TputrainTokenExecArgs());
}

}  // namespace
}  // namespace tputrain::testing
