// The Hugging Face token of `serve up --engine vllm --hf-token-file` is never printed, in the
// error line or in --log-http, against a FAKE Kubernetes API server of the test's own (cpp-httplib
// on loopback) that says what no real one says on demand: it refuses the token's Secret quoting
// the Secret's value (as an admission webhook or a policy engine may, in a 422 or a 500), or it
// takes everything and reports the vLLM pod crash-looping, its log printing HF_TOKEN. What is
// tested is what tputrain prints of what a server says; the API itself is tested against
// kube-apiserver elsewhere.
#include <httplib.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "testing/loopback_server.h"
#include "testing/scoped_process.h"
#include "tputrain/core/base64.h"

namespace tputrain::testing {
namespace {

using nlohmann::json;

// A token of the Hugging Face shape, and one of another shape (an organization's api_org_ token):
// the second can be found only by its value.
const std::string kHfToken = "hf_QwErTy0123456789AsDfGhJkL0123456789Zx";
const std::string kOtherToken = "api_org_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe";
// A token the process never read, in the crashing container's log: found by its shape alone.
const std::string kUnreadToken = "hf_NeverReadByTputrain00000000000000000";
constexpr char kNs[] = "hf";

enum class Refusal { k422, k500, kNone };

json Status(int code, const std::string& reason, const std::string& message) {
  return {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", json::object()},
          {"status", "Failure"}, {"message", message}, {"reason", reason},
          {"code", code}};
}

// Just enough of the Kubernetes API for serve up --engine vllm on a v6e-8: discovery, a node of
// the slice, server-side apply of the Secret, Deployment and Service, and the pod's log.
class FakeApiServer {
 public:
  explicit FakeApiServer(Refusal refusal) : refusal_(refusal) {
    server_.Get(".*", [this](const httplib::Request& request, httplib::Response& response) { Get(request, response); });
    server_.Patch(".*",
                  [this](const httplib::Request& request, httplib::Response& response) { Patch(request, response); });
    loopback_ = std::make_unique<LoopbackServer>(server_);
  }

  std::string url() const { return loopback_->url(); }

 private:
  static void Reply(httplib::Response& response, int status, const json& body) {
    response.status = status;
    response.set_content(body.dump(), "application/json");
  }

  void Get(const httplib::Request& request, httplib::Response& response) {
    const std::string& path = request.path;
    if (path == "/api") return Reply(response, 200, {{"kind", "APIVersions"}, {"versions", {"v1"}}});
    if (path == "/apis") {
      return Reply(
          response, 200,
          {{"kind", "APIGroupList"},
           {"groups", {{{"name", "apps"}, {"versions", {{{"groupVersion", "apps/v1"}, {"version", "v1"}}}}}}}});
    }
    if (path == "/api/v1") {
      return Reply(response, 200,
                   {{"kind", "APIResourceList"},
                    {"groupVersion", "v1"},
                    {"resources",
                     {{{"name", "secrets"}, {"namespaced", true}, {"kind", "Secret"}},
                      {{"name", "services"}, {"namespaced", true}, {"kind", "Service"}},
                      {{"name", "pods"}, {"namespaced", true}, {"kind", "Pod"}},
                      {{"name", "nodes"}, {"namespaced", false}, {"kind", "Node"}}}}});
    }
    if (path == "/apis/apps/v1") {
      return Reply(response, 200,
                   {{"kind", "APIResourceList"},
                    {"groupVersion", "apps/v1"},
                    {"resources", {{{"name", "deployments"}, {"namespaced", true}, {"kind", "Deployment"}}}}});
    }
    if (path == "/api/v1/nodes") {
      return Reply(response, 200,
                   {{"kind", "NodeList"},
                    {"items",
                     {{{"metadata",
                        {{"name", "v6e-node"},
                         {"labels",
                          {{"cloud.google.com/gke-tpu-accelerator", "tpu-v6e-slice"},
                           {"cloud.google.com/gke-tpu-topology", "2x4"}}}}}}}}});
    }
    const std::string pods = std::string("/api/v1/namespaces/") + kNs + "/pods";
    if (path == pods) {
      // The Deployment's pod, crash-looping: vLLM refused the token and exited.
      json status = {{"name", "vllm"},
                     {"ready", false},
                     {"restartCount", 3},
                     {"state",
                      {{"waiting",
                        {{"reason", "CrashLoopBackOff"},
                         {"message", "back-off 40s restarting failed container=vllm pod=vllm-tpu-7d9f"}}}}}};
      return Reply(response, 200,
                   {{"kind", "PodList"},
                    {"items",
                     {{{"metadata", {{"name", "vllm-tpu-7d9f"}, {"labels", {{"app", "vllm-tpu"}}}}},
                       {"status", {{"phase", "Running"}, {"containerStatuses", {status}}}}}}}});
    }
    if (path == pods + "/vllm-tpu-7d9f/log") {
      response.status = 200;
      response.set_content(
          "INFO 11-24 06:00:01 api_server.py:712] vLLM API server version 0.9.2\n"
          "INFO 11-24 06:00:01 env: HF_TOKEN=" +
              kHfToken +
              "\n"
              "ERROR 11-24 06:00:02 401 Client Error for url https://huggingface.co/api/models "
              "(token " +
              kUnreadToken + ")\n",
          "text/plain");
      return;
    }
    std::lock_guard lock(mutex_);
    auto stored = objects_.find(path);
    if (stored == objects_.end()) return Reply(response, 404, Status(404, "NotFound", path + " not found"));
    Reply(response, 200, stored->second);
  }

  void Patch(const httplib::Request& request, httplib::Response& response) {
    json object = json::parse(request.body, nullptr, false);
    if (object.is_discarded()) return Reply(response, 400, Status(400, "BadRequest", "not JSON"));
    if (object.value("kind", "") == "Secret" && refusal_ != Refusal::kNone) {
      // What a policy engine says of a Secret it will not store: the value, decoded, and as sent.
      const std::string sent = object["data"].value("token", "");
      const std::string token = core::DecodeBase64(sent).value_or("?");
      const std::string said = "admission webhook \"secrets.policy.example.com\" denied the request: data.token " +
                               token + " (" + sent + ") matches a leaked-credential rule";
      if (refusal_ == Refusal::k422) return Reply(response, 422, Status(422, "Invalid", said));
      return Reply(response, 500, Status(500, "InternalError", "Internal error occurred: " + said));
    }
    object["metadata"]["resourceVersion"] = "1";
    if (object.value("kind", "") == "Deployment") object["status"] = {{"replicas", 1}, {"unavailableReplicas", 1}};
    std::lock_guard lock(mutex_);
    objects_[request.path] = object;
    Reply(response, 201, object);
  }

  Refusal refusal_;
  httplib::Server server_;
  std::unique_ptr<LoopbackServer> loopback_;
  std::mutex mutex_;
  std::map<std::string, json> objects_;
};

struct TempDir {
  TempDir() {
    char path[] = "/tmp/tputrain-hf-token-XXXXXX";
    dir = mkdtemp(path);
  }
  ~TempDir() { std::filesystem::remove_all(dir); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(dir + "/" + name) << text;
    return dir + "/" + name;
  }
  std::string dir;
};

ProcessResult ServeUp(const FakeApiServer& server, const TempDir& temp, const std::string& token_file) {
  const std::string kubeconfig = temp.Write("kubeconfig",
                                            "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n"
                                            "  cluster:\n    server: " +
                                                server.url() +
                                                "\nusers:\n- name: u\n  user:\n    token: "
                                                "kube-token-0123456789abcdef\ncontexts:\n- name: fake\n"
                                                "  context:\n    cluster: fake\n    user: u\n"
                                                "    namespace: " +
                                                kNs + "\ncurrent-context: fake\n");
  ProcessOptions options;
  options.argv = {TputrainBinary(),
                  "--verbose",
                  "--log-http",
                  "serve",
                  "up",
                  "--engine",
                  "vllm",
                  "--model",
                  "llama3-8b",
                  "--tpu-type",
                  "v6e-8",
                  "--hf-token-file",
                  token_file,
                  "--kubeconfig",
                  kubeconfig,
                  "--run",
                  "hf-run",
                  "--state-dir",
                  temp.dir + "/state",
                  "--timeout",
                  "2m"};
  options.env = {{"TPUTRAIN_RUN", std::nullopt}, {"KUBECONFIG", std::nullopt}, {"XDG_STATE_HOME", temp.dir}};
  return RunProcess(options);
}

void CheckNeverPrinted(const ProcessResult& result, const std::string& token) {
  const std::string encoded = core::EncodeBase64(token);
  for (const auto* stream : {&result.out, &result.err}) {
    CHECK(stream->find(token) == std::string::npos);
    CHECK(stream->find(encoded) == std::string::npos);
    CHECK(stream->find(core::EncodeBase64(token + "\n")) == std::string::npos);
    CHECK(stream->find("kube-token-0123456789abcdef") == std::string::npos);
  }
}

TEST_CASE("a server that quotes the Hugging Face token's Secret in a 422 or a 500 has it printed REDACTED") {
  for (const auto refusal : {Refusal::k422, Refusal::k500}) {
    for (const auto& token : {kHfToken, kOtherToken}) {
      FakeApiServer server(refusal);
      TempDir temp;
      auto result = ServeUp(server, temp, temp.Write("hf-token", token + "\n"));
      INFO("exit " << result.exit_code << "\nstderr: " << result.err);
      CHECK(result.exit_code == 1);
      CheckNeverPrinted(result, token);
      // Not vacuous: the refusal is the error line, its quotes redacted; the request was logged.
      const auto error_at = result.err.find("ERROR: ");
      REQUIRE(error_at != std::string::npos);
      const std::string error_line = result.err.substr(error_at, result.err.find('\n', error_at) - error_at);
      CHECK(error_line.find("denied the request: data.token REDACTED (REDACTED)") != std::string::npos);
      CHECK(result.err.find("PATCH " + server.url() + "/api/v1/namespaces/hf/secrets/hf-token") != std::string::npos);
    }
  }
}

TEST_CASE("a crash-looping vLLM container whose log prints HF_TOKEN has its last lines printed REDACTED") {
  FakeApiServer server(Refusal::kNone);
  TempDir temp;
  auto result = ServeUp(server, temp, temp.Write("hf-token", kHfToken));
  INFO("exit " << result.exit_code << "\nstderr: " << result.err);
  CHECK(result.exit_code == 1);
  CheckNeverPrinted(result, kHfToken);
  CHECK(result.err.find(kUnreadToken) == std::string::npos);  // by its shape
  const auto error_at = result.err.find("ERROR: pod vllm-tpu-7d9f container vllm: CrashLoopBackOff");
  REQUIRE(error_at != std::string::npos);
  CHECK(result.err.find("env: HF_TOKEN=REDACTED\n", error_at) != std::string::npos);
  CHECK(result.err.find("(token REDACTED)", error_at) != std::string::npos);
}

}  // namespace
}  // namespace tputrain::testing
