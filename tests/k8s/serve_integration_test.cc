// `tputrain serve generate` against seed 002's real serving stack on CPU (MaxText's JetStream
// engine behind the upstream jetstream-http, in a network namespace playing the pod), reached
// through the real kube-apiserver's service proxy: no port-forward.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "k8s/apiserver_fixture.h"
#include "k8s/k8s_test_util.h"
#include "k8s/netns_jetstream.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

// What the LeaderWorkerSet's leader pod and the seed's jetstream-svc Service would be; the test
// plays the controllers (the pod's status, the Endpoints).
void PlayJetStreamPod(k8s::Client& admin, const std::string& ns, const std::string& ip) {
  const std::string pod = "jetstream-0";
  CreateObject(admin, "/api/v1/namespaces/" + ns + "/pods",
               {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", pod}, {"labels", {{"app", "jetstream-pathways"}}}}},
                {"spec", {{"containers", {{{"name", "jetstream-http"}, {"image", "jetstream-http:v0.2.3"}}}}}}});
  WriteStatus(admin, "/api/v1/namespaces/" + ns + "/pods/" + pod,
              {{"phase", "Running"},
               {"podIP", ip},
               {"podIPs", {{{"ip", ip}}}},
               {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}});
  CreateObject(admin, "/api/v1/namespaces/" + ns + "/services",
               {{"apiVersion", "v1"},
                {"kind", "Service"},
                {"metadata", {{"name", "jetstream-svc"}}},
                {"spec", {{"ports", {{{"name", "jetstream-http"}, {"port", 8000}, {"targetPort", 8000}}}}}}});
  CreateObject(admin, "/api/v1/namespaces/" + ns + "/endpoints",
               {{"apiVersion", "v1"},
                {"kind", "Endpoints"},
                {"metadata", {{"name", "jetstream-svc"}}},
                {"subsets",
                 {{{"addresses", {{{"ip", ip}, {"targetRef", {{"kind", "Pod"}, {"name", pod}, {"namespace", ns}}}}}},
                   {"ports", {{{"name", "jetstream-http"}, {"port", 8000}}}}}}}});
}

ProcessResult Tputrain(const std::vector<std::string>& args) {
  ProcessOptions options;
  options.argv = {TputrainBinary()};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  return RunProcess(options, std::chrono::seconds(300));
}

TEST_CASE("serve generate asks the real JetStream server through the service proxy, whole and streamed",
          "[integration]") {
  auto& server = ApiServer::Shared();
  NetnsJetStream jetstream;
  const std::string ns = server.NewNamespace("serve");
  PlayJetStreamPod(server.admin(), ns, jetstream.ip());
  const std::string kubeconfig = server.WriteKubeconfig("serve-" + ns, server.admin_token(), ns);
  const std::vector<std::string> target = {"--kubeconfig", kubeconfig};
  auto ask = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"serve", "generate", "--prompt", "What are the top 5 programming languages"};
    args.insert(args.end(), target.begin(), target.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return Tputrain(args);
  };

  auto whole = ask({"--max-tokens", "5", "--format", "json"});
  INFO(whole.err);
  REQUIRE(whole.exit_code == 0);
  const auto answer = nlohmann::json::parse(whole.out);
  const std::string text = answer["text"];
  CHECK_FALSE(text.empty());
  CHECK(answer["engine"] == "jetstream");
  CHECK(answer["service"] == "jetstream-svc");
  CHECK(answer["total_s"].get<double>() > 0);
  CHECK_FALSE(answer.contains("time_to_first_token_s"));

  // Greedy decoding of fixed weights: the streamed pieces make the same text, one per token
  // (the prefill's, then the generated ones), each written as it came.
  auto streamed = ask({"--max-tokens", "5", "--stream", "--format", "json"});
  INFO(streamed.err);
  REQUIRE(streamed.exit_code == 0);
  const auto stream_answer = nlohmann::json::parse(streamed.out);
  CHECK(stream_answer["text"] == text);
  CHECK(stream_answer["pieces"].get<int>() >= 5);
  CHECK(stream_answer["time_to_first_token_s"].get<double>() <= stream_answer["total_s"].get<double>());
  CHECK(stream_answer.contains("tokens_per_s"));

  auto plain = ask({"--max-tokens", "5", "--stream"});
  REQUIRE(plain.exit_code == 0);
  CHECK(plain.out == text + "\n");

  // The engine goes away: jetstream-http's 500 is one line in the server's words.
  jetstream.StopEngine();
  auto down = ask({"--max-tokens", "5"});
  CHECK(down.exit_code == 1);
  CHECK(down.out.empty());
  CHECK(down.err.rfind("ERROR: the engine behind jetstream-http is not serving", 0) == 0);
  CHECK(down.err.find("(HTTP 500)") != std::string::npos);
  CHECK(std::count(down.err.begin(), down.err.end(), '\n') == 1);
}

TEST_CASE("serve generate: a missing Service, one with no endpoints, and bad flags are one line each",
          "[integration]") {
  auto& server = ApiServer::Shared();
  const std::string ns = server.NewNamespace("serve-none");
  const std::string kubeconfig = server.WriteKubeconfig("serve-" + ns, server.admin_token(), ns);
  auto missing = Tputrain({"serve", "generate", "--prompt", "hi", "--kubeconfig", kubeconfig});
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.find("services \\\"jetstream-svc\\\" not found") == std::string::npos);
  CHECK(missing.err.find("jetstream-svc") != std::string::npos);
  CHECK(std::count(missing.err.begin(), missing.err.end(), '\n') == 1);

  CreateObject(server.admin(), "/api/v1/namespaces/" + ns + "/services",
               {{"apiVersion", "v1"},
                {"kind", "Service"},
                {"metadata", {{"name", "jetstream-svc"}}},
                {"spec", {{"ports", {{{"port", 8000}, {"targetPort", 8000}}}}}}});
  // As the endpoints controller leaves it while no pod is ready: an Endpoints with no subsets.
  CreateObject(server.admin(), "/api/v1/namespaces/" + ns + "/endpoints",
               {{"apiVersion", "v1"}, {"kind", "Endpoints"}, {"metadata", {{"name", "jetstream-svc"}}}});
  auto no_endpoints = Tputrain({"serve", "generate", "--prompt", "hi", "--kubeconfig", kubeconfig});
  INFO(no_endpoints.err);
  CHECK(no_endpoints.exit_code == 1);
  CHECK(no_endpoints.err.find("no endpoints available for service") != std::string::npos);
  CHECK(std::count(no_endpoints.err.begin(), no_endpoints.err.end(), '\n') == 1);

  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--max-tokens", "-1"}, {"--port", "70000"}, {"--service", "a/b"}, {"--engine", "vllm"}}) {
    auto bad = Tputrain({"serve", "generate", "--prompt", "hi", "--kubeconfig", kubeconfig, flag, value});
    INFO(flag << " " << value << ": " << bad.err);
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.rfind("ERROR: " + flag + ":", 0) == 0);
  }
}

}  // namespace
}  // namespace tputrain::testing
