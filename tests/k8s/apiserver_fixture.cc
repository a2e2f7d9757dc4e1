#include "k8s/apiserver_fixture.h"

#include "testing/bare_transport.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "testing/bare_transport.h"
#include "testing/free_port.h"
#include "tputrain/core/env.h"
#include "tputrain/k8s/apply.h"
#include "tputrain/k8s/kubeconfig.h"
#include "tputrain/k8s/manifest.h"

namespace tputrain::testing {
namespace {

namespace fs = std::filesystem;

std::string RandomHex(int bytes) {
  std::random_device device;
  std::string out;
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < bytes; ++i) {
    unsigned value = device() & 0xFF;
    out += kHex[value >> 4];
    out += kHex[value & 15];
  }
  return out;
}

void Run(const std::vector<std::string>& argv, const std::string& cwd) {
  ProcessOptions options;
  options.argv = argv;
  options.working_dir = cwd;
  auto result = RunProcess(options, std::chrono::seconds(60));
  if (result.exit_code != 0) throw std::runtime_error(argv[0] + " failed: " + result.err);
}

std::string Require(const std::string& path) {
  if (access(path.c_str(), X_OK) != 0) {
    throw std::runtime_error(path + " is missing: run scripts/peers/k8s.sh (scripts/setup-test-peers.sh)");
  }
  return path;
}

}  // namespace

std::string K8sPeerDir() {
  auto env = core::Env::FromProcess();
  std::string cache = env.GetOr("TPUTRAIN_TEST_CACHE", env.Home() + "/.cache/tputrain-test");
  return cache + "/k8s";
}

std::string ReadTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

ApiServer& ApiServer::Shared() {
  static ApiServer server;
  return server;
}

ApiServer::ApiServer() {
  std::string etcd = Require(K8sPeerDir() + "/etcd");
  Require(K8sPeerDir() + "/kube-apiserver");
  std::string pattern = (fs::temp_directory_path() / "tputrain-k8s-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;

  // A throwaway CA, the server's certificate for 127.0.0.1, an admin client certificate, a
  // second CA that signed nothing (for the wrong-CA test) and the service-account key pair.
  auto openssl = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "openssl");
    Run(args, dir_);
  };
  openssl({"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
           "-subj", "/CN=tputrain-test-ca"});
  openssl({"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other-ca.key", "-out", "other-ca.crt", "-days",
           "2", "-subj", "/CN=tputrain-test-other-ca"});
  openssl({"req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj",
           "/CN=kube-apiserver"});
  WriteTextFile(dir_ + "/server.ext", "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  openssl({"x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out",
           "server.crt", "-days", "2", "-extfile", "server.ext"});
  openssl({"req", "-newkey", "rsa:2048", "-nodes", "-keyout", "client.key", "-out", "client.csr", "-subj",
           "/O=system:masters/CN=cert-admin"});
  openssl({"x509", "-req", "-in", "client.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out",
           "client.crt", "-days", "2"});
  openssl({"genrsa", "-out", "sa.key", "2048"});
  openssl({"rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub"});
  ca_pem_ = ReadTextFile(dir_ + "/ca.crt");
  other_ca_pem_ = ReadTextFile(dir_ + "/other-ca.crt");
  client_cert_pem_ = ReadTextFile(dir_ + "/client.crt");
  client_key_pem_ = ReadTextFile(dir_ + "/client.key");
  admin_token_ = "admin-" + RandomHex(16);
  nobody_token_ = "nobody-" + RandomHex(16);
  google_token_ = "ya29.test-" + RandomHex(16);
  WriteTokenFile({});

  etcd_port_ = FreeLoopbackPort();
  int peer_port = FreeLoopbackPort();
  ProcessOptions etcd_options;
  // A throwaway store, without fsync: a fsync queued behind a loaded CI disk ran past etcd's own
  // deadline, and the API server answered "etcdserver: request timed out".
  etcd_options.argv = {"setpriv",
                       "--pdeathsig",
                       "KILL",
                       "--",
                       etcd,
                       "--data-dir",
                       dir_ + "/etcd",
                       "--listen-client-urls",
                       "http://127.0.0.1:" + std::to_string(etcd_port_),
                       "--advertise-client-urls",
                       "http://127.0.0.1:" + std::to_string(etcd_port_),
                       "--listen-peer-urls",
                       "http://127.0.0.1:" + std::to_string(peer_port),
                       "--initial-advertise-peer-urls",
                       "http://127.0.0.1:" + std::to_string(peer_port),
                       "--initial-cluster",
                       "default=http://127.0.0.1:" + std::to_string(peer_port),
                       "--log-level",
                       "error",
                       "--unsafe-no-fsync"};
  etcd_ = std::make_unique<ScopedProcess>(etcd_options);
  api_port_ = FreeLoopbackPort();
  server_ = "https://127.0.0.1:" + std::to_string(api_port_);
  StartApiServer();

  http::CurlOptions curl;
  curl.ca_pem = ca_pem_;
  k8s::ClusterAccess access;
  access.server = server_;
  access.token = admin_token_;
  core::Env env;
  auto credentials = k8s::Credentials::Create(access, {&env, nullptr, {}});
  admin_credentials_ = *credentials;
  transport_ = BareTransport(curl, *admin_credentials_);
  admin_ = std::make_unique<k8s::Client>(*transport_, server_);
  discovery_ = std::make_unique<k8s::Discovery>(*admin_);
  WaitReady();
}

void ApiServer::StartApiServer() {
  ProcessOptions options;
  options.argv = {
      "setpriv", "--pdeathsig", "KILL", "--", K8sPeerDir() + "/kube-apiserver",
      "--etcd-servers=http://127.0.0.1:" + std::to_string(etcd_port_), "--bind-address=127.0.0.1",
      "--secure-port=" + std::to_string(api_port_), "--advertise-address=127.0.0.1", "--endpoint-reconciler-type=none",
      "--tls-cert-file=" + dir_ + "/server.crt", "--tls-private-key-file=" + dir_ + "/server.key",
      "--client-ca-file=" + dir_ + "/ca.crt", "--token-auth-file=" + dir_ + "/tokens.csv", "--authorization-mode=RBAC",
      "--service-account-issuer=https://kubernetes.default.svc", "--service-account-key-file=" + dir_ + "/sa.pub",
      "--service-account-signing-key-file=" + dir_ + "/sa.key", "--service-cluster-ip-range=10.96.0.0/16",
      "--cert-dir=" + dir_ + "/certs", "--profiling=false",
      // GKE admits privileged pods; seed 003's Saxml admin and model servers are.
      "--allow-privileged=true",
      // As GKE: a pod requesting google.com/tpu tolerates the TPU nodes' taint without saying so.
      "--enable-admission-plugins=ExtendedResourceToleration"};
  apiserver_ = std::make_unique<ScopedProcess>(options);
}

void ApiServer::WaitReady() {
  bool ready = WaitFor(
      [&] {
        auto response = admin_->Send("GET", "/readyz");
        return response && response->status == 200;
      },
      std::chrono::seconds(60));
  if (!ready) {
    throw std::runtime_error("kube-apiserver did not become ready: " + apiserver_->ReadErr().substr(0, 4000));
  }
}

void ApiServer::WriteTokenFile(const std::vector<std::string>& extra_admin_tokens) {
  std::string text = admin_token_ + ",test-admin,uid-admin,\"system:masters\"\n" + nobody_token_ +
                     ",test-nobody,uid-nobody\n" + google_token_ +
                     ",someone@example.com,uid-google,\"system:masters\"\n";
  for (size_t i = 0; i < extra_admin_tokens.size(); ++i) {
    text += extra_admin_tokens[i] + ",extra-admin-" + std::to_string(i) + ",uid-extra-" + std::to_string(i) +
            ",\"system:masters\"\n";
  }
  WriteTextFile(dir_ + "/tokens.csv", text);
}

void ApiServer::SetExtraAdminTokens(const std::vector<std::string>& tokens) {
  WriteTokenFile(tokens);
  RestartApiServer();
}

void ApiServer::RestartApiServer() {
  apiserver_->Kill();
  apiserver_.reset();
  StartApiServer();
  WaitReady();
}

ApiServer::~ApiServer() {
  apiserver_.reset();  // SIGTERM then SIGKILL of the process group
  etcd_.reset();
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string ApiServer::KubeconfigText(const std::string& token, const std::string& ns, bool client_cert) const {
  std::string user = client_cert ? "    client-certificate-data: " + k8s::EncodeBase64(client_cert_pem_) +
                                       "\n    client-key-data: " + k8s::EncodeBase64(client_key_pem_) + "\n"
                                 : "    token: " + token + "\n";
  return "apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    server: " + server_ +
         "\n    certificate-authority-data: " + k8s::EncodeBase64(ca_pem_) +
         "\ncontexts:\n- name: test\n  context:\n    cluster: test\n    user: test\n    namespace: " + ns +
         "\ncurrent-context: test\nusers:\n- name: test\n  user:\n" + user;
}

std::string ApiServer::WriteKubeconfig(const std::string& file_name, const std::string& token,
                                       const std::string& ns) const {
  std::string path = dir_ + "/" + file_name;
  WriteTextFile(path, KubeconfigText(token, ns));
  return path;
}

k8s::Client& ApiServer::admin() { return *admin_; }
k8s::Discovery& ApiServer::discovery() { return *discovery_; }

void ApiServer::EnsureCrds() {
  if (crds_applied_) return;
  std::vector<k8s::Object> all;
  for (const char* file :
       {"ray.io_rayclusters.yaml", "leaderworkerset.x-k8s.io_leaderworkersets.yaml", "jobset.x-k8s.io_jobsets.yaml"}) {
    std::string path = std::string(TPUTRAIN_SOURCE_DIR) + "/data/crds/" + file;
    auto objects = k8s::ParseManifests(ReadTextFile(path), path);
    if (!objects) throw std::runtime_error(objects.error().message);
    for (auto& object : *objects) all.push_back(std::move(object));
  }
  core::SystemClock clock;
  core::RealSleeper sleeper;
  auto applied = k8s::Apply(*admin_, *discovery_, all, {}, {clock, sleeper, nullptr});
  if (!applied) throw std::runtime_error("applying data/crds failed: " + applied.error().message);
  crds_applied_ = true;
}

std::string ApiServer::NewNamespace(const std::string& prefix) {
  std::string name = prefix + "-" + std::to_string(++namespaces_) + "-" + RandomHex(3);
  auto created =
      admin_->Send("POST", "/api/v1/namespaces",
                   nlohmann::json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}}.dump());
  if (!created || !created->ok()) throw std::runtime_error("cannot create namespace " + name);
  auto account = admin_->Send(
      "POST", "/api/v1/namespaces/" + name + "/serviceaccounts",
      nlohmann::json{{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "default"}}}}.dump());
  // With the real control plane running, its service-account controller may have made it first.
  if (!account || (!account->ok() && account->status != 409)) {
    throw std::runtime_error("cannot create the default ServiceAccount in " + name);
  }
  return name;
}

}  // namespace tputrain::testing
