// `tputrain serve generate --engine vllm` against a SIMULATOR of vLLM's OpenAI-compatible server
// (llm-d-inference-sim in echo mode; real vLLM does not install here), reached through the real
// kube-apiserver's service proxy: no port-forward. What tputrain prints is what the simulator
// answers a direct request with. The pod is real: the Deployment and Service `serve up --engine
// vllm` renders, its pod made by the real Deployment and ReplicaSet controllers, bound by the real
// scheduler to a v6e-8 host (kwok its kubelet) and listed by the real endpoints controller; the
// harness plays only the container runtime: the simulator, in a network namespace, at the pod's IP.
#include <algorithm>
#include <regex>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "k8s/apiserver_fixture.h"
#include "k8s/control_plane.h"
#include "k8s/k8s_test_util.h"
#include "k8s/kwok_nodes.h"
#include "k8s/netns_vllm_sim.h"
#include "testing/scoped_process.h"
#include "tputrain/core/env.h"
#include "tputrain/http/curl_transport.h"

namespace tputrain::testing {
namespace {

// The control plane, with a pool of v6e-8 hosts (ct6e-standard-8t, one 2x4 slice each): one host
// per vLLM Deployment the binary makes (the shared one, serve status's, the opt-in real one).
ControlPlane& Plane() {
  ControlPlaneOptions options;
  options.pod_end = PodEnd::kRunForever;
  options.answering_pods = {{"app", "vllm-tpu"}};  // the template's Deployment pods
  auto& plane = ControlPlane::Shared(options);
  AddNodePool(plane.server().admin(), ShapeOfGkePool("vllm", "us-east5-b",
                                                     {{"name", "v6e-8-pool"},
                                                      {"initialNodeCount", 3},
                                                      {"config", {{"machineType", "ct6e-standard-8t"}}},
                                                      {"placementPolicy", {{"tpuTopology", "2x4"}}}}));
  return plane;
}

// What `serve up --engine vllm` renders (the Deployment vllm-tpu, the Service vllm-service),
// created in `ns` with vLLM's port at `port`; returns the pod once the scheduler has bound it.
std::string CreateVllmDeployment(ControlPlane& plane, const std::string& ns, int port = NetnsVllmSim::kHttpPort) {
  // No cluster at hand (no KUBECONFIG, no ~/.kube/config), whatever the test runner's: the dry run
  // only renders and shows the objects.
  auto rendered = RunProcess({.argv = {TputrainBinary(), "serve", "up", "--engine", "vllm", "--model", "org/model",
                                       "--tpu-type", "v6e-8", "--dry-run", "--format", "json"},
                              .env = {{"KUBECONFIG", std::nullopt}, {"HOME", "/nonexistent"}}});
  INFO(rendered.err);
  REQUIRE(rendered.exit_code == 0);
  auto printed = nlohmann::json::parse(rendered.out);
  REQUIRE(printed["objects"].size() == 2);
  for (auto object : printed["objects"]) {
    if (object["kind"] == "Deployment") {
      for (auto& container : object["spec"]["template"]["spec"]["containers"]) {
        for (auto& container_port : container["ports"]) {
          if (container_port.value("name", "") == "http") container_port["containerPort"] = port;
        }
      }
      CreateObject(plane.server().admin(), "/apis/apps/v1/namespaces/" + ns + "/deployments", object);
    } else {
      CreateObject(plane.server().admin(), "/api/v1/namespaces/" + ns + "/services", object);
    }
  }
  return plane.WaitScheduledPod(ns, "app=vllm-tpu");
}

// The vLLM pod served at `ip` (kwok reports it Running there) and listed behind vllm-service.
void ServeVllmAt(ControlPlane& plane, const std::string& ns, const std::string& ip,
                 int port = NetnsVllmSim::kHttpPort) {
  plane.ServePodAt(ns, CreateVllmDeployment(plane, ns, port), ip);
  WaitEndpoint(plane.server().admin(), ns, "vllm-service", ip);
}

struct VllmTarget {
  std::string kubeconfig;

  ProcessResult Generate(std::vector<std::string> extra) const {
    ProcessOptions options;
    options.argv = {TputrainBinary(), "serve", "generate", "--engine", "vllm", "--kubeconfig", kubeconfig};
    options.argv.insert(options.argv.end(), extra.begin(), extra.end());
    return RunProcess(options, std::chrono::seconds(120));
  }
};

long Lines(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

// One served vLLM pod for every generate case (they only ask it): made once per binary.
struct Fixture {
  NetnsVllmSim sim;
  VllmTarget target;

  Fixture() {
    auto& plane = Plane();
    const std::string ns = plane.server().NewNamespace("vllm");
    ServeVllmAt(plane, ns, sim.ip());
    target.kubeconfig = plane.server().WriteKubeconfig("vllm-" + ns, plane.server().admin_token(), ns);
  }
  static Fixture& Shared() {
    static Fixture fixture;
    return fixture;
  }
};

TEST_CASE("serve generate --engine vllm: completions, whole and streamed, as the simulator answers them",
          "[integration]") {
  auto& fixture = Fixture::Shared();
  const std::string prompt = "Tensor processing units multiply matrices";
  const auto direct = fixture.sim.PostDirect("/v1/completions",
                                             {{"model", NetnsVllmSim::kModel}, {"prompt", prompt}, {"max_tokens", 20}});
  REQUIRE(direct["http_status"] == 200);
  const std::string text = direct["choices"][0]["text"];
  REQUIRE_FALSE(text.empty());

  // No --model: the one /v1/models lists (the simulator, unlike vLLM, refuses a request without).
  auto whole = fixture.target.Generate({"--prompt", prompt, "--max-tokens", "20"});
  INFO(whole.err);
  REQUIRE(whole.exit_code == 0);
  CHECK(whole.out == text + "\n");

  auto streamed = fixture.target.Generate({"--prompt", prompt, "--max-tokens", "20", "--stream"});
  INFO(streamed.err);
  REQUIRE(streamed.exit_code == 0);
  CHECK(streamed.out == text + "\n");

  auto json = fixture.target.Generate({"--prompt", prompt, "--max-tokens", "20", "--stream", "--format", "json"});
  INFO(json.err);
  REQUIRE(json.exit_code == 0);
  const auto answer = nlohmann::json::parse(json.out);
  CHECK(answer["engine"] == "vllm");
  CHECK(answer["service"] == "vllm-service");
  CHECK(answer["model"] == NetnsVllmSim::kModel);
  CHECK(answer["text"] == text);
  CHECK(answer["pieces"].get<int>() > 1);  // token by token
  CHECK(answer["usage"]["prompt_tokens"] == direct["usage"]["prompt_tokens"]);
  CHECK(answer["usage"]["completion_tokens"] == direct["usage"]["completion_tokens"]);
  CHECK(answer["usage"]["total_tokens"] == direct["usage"]["total_tokens"]);
  CHECK(answer["time_to_first_token_s"].get<double>() <= answer["total_s"].get<double>());
  CHECK(answer.contains("tokens_per_s"));

  // --dry-run asks the server nothing and shows both requests: which model, then the completion.
  auto dry = fixture.target.Generate({"--prompt", prompt, "--dry-run", "--format", "json"});
  INFO(dry.err);
  REQUIRE(dry.exit_code == 0);
  const auto planned = nlohmann::json::parse(dry.out)["requests"];
  REQUIRE(planned.size() == 2);
  CHECK(planned[0]["method"] == "GET");
  CHECK(planned[0]["url"].get<std::string>().ends_with("/services/vllm-service:8000/proxy/v1/models"));
  CHECK(planned[1]["url"].get<std::string>().ends_with("/proxy/v1/completions"));
  CHECK(planned[1]["body"] == nlohmann::json{{"prompt", prompt}, {"max_tokens", 200}});

  auto whole_json = fixture.target.Generate(
      {"--prompt", prompt, "--max-tokens", "20", "--model", NetnsVllmSim::kModel, "--format", "json"});
  INFO(whole_json.err);
  REQUIRE(whole_json.exit_code == 0);
  const auto whole_answer = nlohmann::json::parse(whole_json.out);
  CHECK(whole_answer["text"] == text);
  CHECK(whole_answer["usage"]["completion_tokens"] == direct["usage"]["completion_tokens"]);
  CHECK_FALSE(whole_answer.contains("time_to_first_token_s"));
}

TEST_CASE("serve generate --engine vllm: chat from --message and from --chat, whole and streamed", "[integration]") {
  auto& fixture = Fixture::Shared();
  const nlohmann::json messages = {{{"role", "system"}, {"content", "Answer in one line."}},
                                   {{"role", "user"}, {"content", "Which chips does v6e have"}}};
  const auto direct = fixture.sim.PostDirect(
      "/v1/chat/completions", {{"model", NetnsVllmSim::kModel}, {"messages", messages}, {"max_completion_tokens", 20}});
  REQUIRE(direct["http_status"] == 200);
  const std::string text = direct["choices"][0]["message"]["content"];
  REQUIRE_FALSE(text.empty());

  const std::vector<std::string> chat = {
      "--message", "system:Answer in one line.", "--message", "user:Which chips does v6e have", "--max-tokens", "20"};
  for (bool stream : {false, true}) {
    auto args = chat;
    if (stream) args.push_back("--stream");
    auto asked = fixture.target.Generate(args);
    INFO("stream " << stream << ": " << asked.err);
    REQUIRE(asked.exit_code == 0);
    CHECK(asked.out == text + "\n");
  }
  auto args = chat;
  args.insert(args.end(), {"--stream", "--format", "json"});
  auto json = fixture.target.Generate(args);
  REQUIRE(json.exit_code == 0);
  const auto answer = nlohmann::json::parse(json.out);
  CHECK(answer["messages"] == messages);
  CHECK_FALSE(answer.contains("prompt"));
  CHECK(answer["text"] == text);
  CHECK(answer["usage"]["completion_tokens"] == direct["usage"]["completion_tokens"]);

  // --chat: the prompt as the one user message.
  const auto single =
      fixture.sim.PostDirect("/v1/chat/completions", {{"model", NetnsVllmSim::kModel},
                                                      {"messages", {{{"role", "user"}, {"content", "Hello there"}}}},
                                                      {"max_completion_tokens", 20}});
  auto chatted = fixture.target.Generate({"--prompt", "Hello there", "--chat", "--stream"});
  INFO(chatted.err);
  REQUIRE(chatted.exit_code == 0);
  CHECK(chatted.out == single["choices"][0]["message"]["content"].get<std::string>() + "\n");
}

TEST_CASE("serve generate --engine vllm: an unknown model and a refused body are one line each, exit 1",
          "[integration]") {
  auto& fixture = Fixture::Shared();
  for (bool stream : {false, true}) {
    std::vector<std::string> args = {"--prompt", "hi", "--model", "nope"};
    if (stream) args.push_back("--stream");
    auto unknown = fixture.target.Generate(args);
    INFO("stream " << stream << ": " << unknown.err);
    CHECK(unknown.exit_code == 1);
    CHECK(unknown.out.empty());
    CHECK(unknown.err ==
          "ERROR: the vLLM server refused the request: The model `nope` does not exist. (NotFoundError, HTTP 404)\n");
  }

  // A body the server refuses: more tokens than the model's context (256 here).
  const auto direct = fixture.sim.PostDirect(
      "/v1/completions", {{"model", NetnsVllmSim::kModel}, {"prompt", "hi"}, {"max_tokens", 100000}});
  REQUIRE(direct["http_status"] == 400);
  const std::string reason = direct["error"]["message"];
  for (bool stream : {false, true}) {
    std::vector<std::string> args = {"--prompt", "hi", "--max-tokens", "100000"};
    if (stream) args.push_back("--stream");
    auto refused = fixture.target.Generate(args);
    INFO("stream " << stream << ": " << refused.err);
    CHECK(refused.exit_code == 1);
    CHECK(refused.out.empty());
    CHECK(refused.err == "ERROR: the vLLM server refused the request: " + reason + " (BadRequestError, HTTP 400)\n");
    CHECK(Lines(refused.err) == 1);
  }

  // Bad flags never reach the server.
  for (const auto& [flag, args] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"--message", {"--message", "robot:hi"}},
           {"--temperature", {"--prompt", "hi", "--temperature", "-1"}},
           {"--max-tokens", {"--prompt", "hi", "--max-tokens", "0"}},
           {"--model", {"--prompt", "hi", "--model", "a\nb"}},
           {"--chat", {"--message", "user:hi", "--chat"}}}) {
    auto bad = fixture.target.Generate(args);
    INFO(flag << ": " << bad.err);
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.rfind("ERROR: " + flag + ":", 0) == 0);
    CHECK(Lines(bad.err) == 1);
  }

  // The port closed, as vLLM's is until its model is loaded: the proxy's refused dial, said so.
  fixture.sim.Stop();
  auto closed = fixture.target.Generate({"--prompt", "hi", "--model", NetnsVllmSim::kModel});
  INFO(closed.err);
  CHECK(closed.exit_code == 1);
  CHECK(closed.err.rfind("ERROR: the vLLM server does not accept connections yet", 0) == 0);
  CHECK(closed.err.find("connection refused (HTTP 503)") != std::string::npos);
  CHECK(Lines(closed.err) == 1);
  fixture.sim.Start();  // the shared pod answers again for the cases after this one
}

// Opt-in, hidden from the default run (real vLLM does not install on these CPU machines):
//   TPUTRAIN_REAL_VLLM=http://IP:PORT build/tests/k8s/k8s_vllm_test "[real-vllm]"
// names a running vLLM OpenAI server (not a loopback address: the service proxy refuses those),
// which the test puts behind vllm-service and asks as the simulator is asked, greedily.
TEST_CASE("serve status shows the Deployment serve up --engine vllm renders, with its pods and Service",
          "[integration]") {
  auto& plane = Plane();
  auto& server = plane.server();
  const std::string ns = server.NewNamespace("vllm-status");
  const std::string kubeconfig = server.WriteKubeconfig("vllm-status-" + ns, server.admin_token(), ns);
  // What serve up would apply; the real controllers make its pod, kwok runs it.
  plane.StartPod(ns, CreateVllmDeployment(plane, ns));
  // Another Deployment is no vLLM server: status leaves it out.
  CreateObject(server.admin(), "/apis/apps/v1/namespaces/" + ns + "/deployments",
               {{"apiVersion", "apps/v1"},
                {"kind", "Deployment"},
                {"metadata", {{"name", "web"}}},
                {"spec",
                 {{"selector", {{"matchLabels", {{"app", "web"}}}}},
                  {"template",
                   {{"metadata", {{"labels", {{"app", "web"}}}}},
                    {"spec", {{"containers", {{{"name", "web"}, {"image", "nginx"}}}}}}}}}}});
  // The Deployment controller reports the pod available (minutes: a loaded machine).
  bool available = WaitFor(
      [&] {
        auto deployment = server.admin().GetJson("/apis/apps/v1/namespaces/" + ns + "/deployments/vllm-tpu", "");
        return deployment && (*deployment)["status"].value("availableReplicas", 0) == 1;
      },
      std::chrono::minutes(3));
  REQUIRE(available);

  auto status =
      RunProcess({.argv = {TputrainBinary(), "serve", "status", "--kubeconfig", kubeconfig, "--format", "json"}});
  INFO(status.err);
  REQUIRE(status.exit_code == 0);
  const auto rows = nlohmann::json::parse(status.out);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["kind"] == "deployment");
  CHECK(rows[0]["name"] == "vllm-tpu");
  CHECK(rows[0]["available"] == true);
  CHECK(rows[0]["pods_ready"] == 1);
  CHECK(rows[0]["pods"] == 1);
  CHECK(rows[0]["service"] == "vllm-service");
  CHECK(rows[0]["endpoint"] == server.server() + "/api/v1/namespaces/" + ns + "/services/vllm-service:8000/proxy/");
}

TEST_CASE("serve generate --engine vllm against a real vLLM server named by TPUTRAIN_REAL_VLLM", "[.real-vllm]") {
  const auto address = core::Env::FromProcess().Get("TPUTRAIN_REAL_VLLM");
  INFO("TPUTRAIN_REAL_VLLM=http://IP:PORT names the vLLM server");
  REQUIRE(address);
  std::smatch parts;
  REQUIRE(std::regex_match(*address, parts, std::regex(R"(http://(\d+\.\d+\.\d+\.\d+):(\d+)/?)")));
  const std::string ip = parts[1];
  const int port = std::stoi(parts[2]);

  auto& plane = Plane();
  auto& server = plane.server();
  const std::string ns = server.NewNamespace("real-vllm");
  ServeVllmAt(plane, ns, ip, port);
  VllmTarget target{server.WriteKubeconfig("real-vllm-" + ns, server.admin_token(), ns)};

  http::CurlOptions curl_options;
  curl_options.plain_http_host = ip;
  http::CurlTransport transport(curl_options);
  auto direct = [&](const std::string& path, const nlohmann::json& body) {
    http::Request request;
    request.method = body.is_null() ? "GET" : "POST";
    request.url = "http://" + ip + ":" + std::to_string(port) + path;
    request.headers = {{"Content-Type", "application/json"}};
    if (!body.is_null()) request.body = body.dump();
    request.timeout = std::chrono::minutes(5);
    auto response = transport.Send(request);
    REQUIRE(response);
    INFO(response->body);
    REQUIRE(response->status == 200);
    return nlohmann::json::parse(response->body);
  };
  const std::string model = direct("/v1/models", nullptr)["data"][0]["id"];
  const std::string prompt = "The capital of France is";
  const auto completion =
      direct("/v1/completions", {{"model", model}, {"prompt", prompt}, {"max_tokens", 16}, {"temperature", 0}});
  for (bool stream : {false, true}) {
    std::vector<std::string> args = {"--prompt", prompt, "--max-tokens", "16", "--temperature", "0"};
    if (stream) args.push_back("--stream");
    auto asked = target.Generate(args);
    INFO("stream " << stream << ": " << asked.err);
    REQUIRE(asked.exit_code == 0);
    CHECK(asked.out == completion["choices"][0]["text"].get<std::string>() + "\n");
  }
  // A chat needs the model's chat template; vLLM's own refusal is one line where it has none.
  auto chat = target.Generate({"--message", "user:Say hello", "--max-tokens", "16", "--temperature", "0", "--stream"});
  INFO(chat.err);
  CHECK(((chat.exit_code == 0 && !chat.out.empty()) || (chat.exit_code == 1 && Lines(chat.err) == 1)));
  auto unknown = target.Generate({"--prompt", "hi", "--model", "no-such-model"});
  CHECK(unknown.exit_code == 1);
  CHECK(unknown.err.rfind("ERROR: the vLLM server refused the request: The model `no-such-model` does not exist.", 0) ==
        0);
  CHECK(Lines(unknown.err) == 1);
}

}  // namespace
}  // namespace tputrain::testing
