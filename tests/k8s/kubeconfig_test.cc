#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "tputrain/k8s/kubeconfig.h"
#include "tputrain/k8s/kubeconfig_writer.h"

namespace tputrain::k8s {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  std::string path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "tputrain-kubeconfig-XXXXXX").string();
    path = mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::string file = path + "/" + name;
    std::ofstream(file) << text;
    return file;
  }
};

std::string Config(const std::string& cluster, const std::string& server, const std::string& user_body,
                   const std::string& current = "") {
  return "apiVersion: v1\nkind: Config\nclusters:\n- name: " + cluster + "\n  cluster:\n    server: " + server +
         "\ncontexts:\n- name: " + cluster + "\n  context:\n    cluster: " + cluster + "\n    user: " + cluster +
         "\nusers:\n- name: " + cluster + "\n  user:\n" + user_body +
         (current.empty() ? "" : "current-context: " + current + "\n");
}

TEST_CASE("KUBECONFIG files merge as kubectl merges them: first definition and first current-context win", "[unit]") {
  TempDir dir;
  std::string a = dir.Write("a", Config("one", "https://10.0.0.1", "    token: first\n", "one"));
  std::string b = dir.Write("b", Config("one", "https://10.0.0.2", "    token: second\n", "two") + "");
  std::string c = dir.Write("c", Config("two", "https://10.0.0.3", "    tokenFile: token.txt\n"));
  dir.Write("token.txt", "from-file\n");
  core::Env env({{"KUBECONFIG", a + ":" + dir.path + "/missing:" + b + ":" + c}});

  auto access = LoadClusterAccess({}, env);
  REQUIRE(access);
  CHECK(access->context == "one");
  CHECK(access->server == "https://10.0.0.1");
  CHECK(access->token == "first");

  auto two = LoadClusterAccess({"", "two", false}, env);
  REQUIRE(two);
  CHECK(two->server == "https://10.0.0.3");
  CHECK(two->token == "from-file");  // relative to the file that named it

  auto none = LoadClusterAccess({"", "three", false}, env);
  REQUIRE_FALSE(none);
  CHECK(none.error().message.find("--context: no context named 'three'") != std::string::npos);

  auto explicit_missing = LoadClusterAccess({dir.path + "/nope", "", false}, env);
  REQUIRE_FALSE(explicit_missing);
  CHECK(explicit_missing.error().message.find("--kubeconfig: no such file") != std::string::npos);
}

TEST_CASE("a kubeconfig is at hand where kubectl looks: KUBECONFIG's files, else ~/.kube/config", "[unit]") {
  TempDir dir;
  CHECK_FALSE(DefaultKubeconfigExists(core::Env({{"HOME", dir.path}})));
  const std::string missing = dir.path + "/missing";
  CHECK_FALSE(DefaultKubeconfigExists(core::Env({{"HOME", dir.path}, {"KUBECONFIG", missing}})));
  const std::string file = dir.Write("a", Config("one", "https://10.0.0.1", "    token: t\n", "one"));
  CHECK(DefaultKubeconfigExists(core::Env({{"HOME", dir.path}, {"KUBECONFIG", missing + ":" + file}})));
  fs::create_directories(dir.path + "/.kube");
  dir.Write(".kube/config", Config("one", "https://10.0.0.1", "    token: t\n", "one"));
  CHECK(DefaultKubeconfigExists(core::Env({{"HOME", dir.path}})));
  // KUBECONFIG set is where kubectl looks, and only there.
  CHECK_FALSE(DefaultKubeconfigExists(core::Env({{"HOME", dir.path}, {"KUBECONFIG", missing}})));
}

TEST_CASE("kubeconfig fields: CA and client certificate from files or data, exec entries, refusals", "[unit]") {
  TempDir dir;
  dir.Write("ca.pem", "CA PEM");
  std::string text =
      "clusters:\n- name: c\n  cluster:\n    server: https://k\n    certificate-authority: ca.pem\n"
      "contexts:\n- name: c\n  context: {cluster: c, user: u, namespace: ml}\ncurrent-context: c\n"
      "users:\n- name: u\n  user:\n    client-certificate-data: " +
      EncodeBase64("CERT") + "\n    client-key-data: " + EncodeBase64("KEY") +
      "\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: gke-gcloud-auth-plugin\n"
      "      provideClusterInfo: true\n";
  auto access = ClusterAccessFromKubeconfigText(text, dir.path, {});
  REQUIRE(access);
  CHECK(access->ca_pem == "CA PEM");
  CHECK(access->client_cert_pem == "CERT");
  CHECK(access->client_key_pem == "KEY");
  CHECK(access->default_namespace == "ml");
  REQUIRE(access->exec);
  CHECK(access->exec->command == "gke-gcloud-auth-plugin");
  CHECK(access->exec->provide_cluster_info);

  auto basic = ClusterAccessFromKubeconfigText(
      "clusters:\n- name: c\n  cluster: {server: https://k}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\n"
      "current-context: c\nusers:\n- name: u\n  user: {username: a, password: b}\n",
      "", {});
  REQUIRE_FALSE(basic);
  CHECK(basic.error().message.find("basic authentication") != std::string::npos);

  auto no_context = ClusterAccessFromKubeconfigText("clusters: []\n", "", {});
  REQUIRE_FALSE(no_context);
  CHECK(no_context.error().message.find("--context") != std::string::npos);
}

// The codec's known answers are in tests/core/base64_test.cc; here, what a kubeconfig makes of it.
TEST_CASE("a *-data field that is not base64 is refused in one line naming the field", "[unit]") {
  TempDir dir;
  std::string text =
      "clusters:\n- name: c\n  cluster:\n    server: https://k\n    certificate-authority-data: Q0E=\n"
      "contexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n"
      "users:\n- name: u\n  user:\n    client-certificate-data: not*base64\n    client-key-data: S0VZ\n";
  auto access = ClusterAccessFromKubeconfigText(text, dir.path, {});
  REQUIRE_FALSE(access);
  CHECK(access.error().message.find("client-certificate-data: not valid base64: unexpected character '*'") !=
        std::string::npos);
  CHECK(access.error().message.find('\n') == std::string::npos);
  CHECK(tputrain::core::ExitCodeFor(access.error()) == 2);
}

TEST_CASE("the kubeconfig entry keeps other entries and the path follows KUBECONFIG", "[unit]") {
  TempDir dir;
  std::string path = dir.Write("config", Config("mine", "https://1.2.3.4", "    token: t\n", "mine"));
  KubeconfigEntry entry{"gke_p_l_c", "https://5.6.7.8", EncodeBase64("CA")};
  REQUIRE(WriteKubeconfigEntry(path, entry));
  core::Env env;
  auto written = LoadClusterAccess({path, "", false}, env);
  REQUIRE(written);
  CHECK(written->context == "gke_p_l_c");
  CHECK(written->server == "https://5.6.7.8");
  CHECK(written->ca_pem == "CA");
  auto mine = LoadClusterAccess({path, "mine", false}, env);
  REQUIRE(mine);
  CHECK(mine->token == "t");

  CHECK(KubeconfigWritePath("", core::Env(std::map<std::string, std::string>{{"KUBECONFIG", "/x/a:/x/b"}})) == "/x/a");
  CHECK(KubeconfigWritePath("/flag", core::Env(std::map<std::string, std::string>{{"KUBECONFIG", "/x/a"}})) == "/flag");
  CHECK(KubeconfigWritePath("", core::Env(std::map<std::string, std::string>{{"HOME", "/home/u"}})) ==
        "/home/u/.kube/config");
}

}  // namespace
}  // namespace tputrain::k8s
