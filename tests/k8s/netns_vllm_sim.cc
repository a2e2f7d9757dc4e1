#include "k8s/netns_vllm_sim.h"

#include <filesystem>
#include <stdexcept>

#include "tputrain/core/env.h"
#include "tputrain/http/curl_transport.h"

namespace tputrain::testing {
namespace {

std::string Tail(const std::string& text, std::size_t bytes = 3000) {
  return text.size() > bytes ? text.substr(text.size() - bytes) : text;
}

}  // namespace

NetnsVllmSim::NetnsVllmSim(bool start) : host_("vl", 244) {
  if (start) Start();
}

void NetnsVllmSim::Start() {
  auto env = core::Env::FromProcess();
  const std::string cache = env.GetOr("TPUTRAIN_TEST_CACHE", env.Home() + "/.cache/tputrain-test");
  const std::string binary = cache + "/vllm-sim/llm-d-inference-sim";
  if (!std::filesystem::exists(binary)) {
    throw std::runtime_error("no vLLM simulator in " + cache + ": run scripts/peers/vllm-sim.sh");
  }
  // Latencies that make a stream arrive token by token; a small context so that a request past
  // it is refused as vLLM refuses it.
  ProcessOptions sim;
  sim.argv = {binary,
              "--model",
              kModel,
              "--port",
              std::to_string(kHttpPort),
              "--mode",
              "echo",
              "--time-to-first-token",
              "50ms",
              "--inter-token-latency",
              "10ms",
              "--max-model-len",
              "256",
              "--seed",
              "7"};
  sim_ = host_.Start(sim);

  http::CurlOptions curl_options;
  curl_options.plain_http_host = ip();
  http::CurlTransport transport(curl_options);
  http::Request probe;
  probe.url = "http://" + ip() + ":" + std::to_string(kHttpPort) + "/health/ready";
  probe.timeout = std::chrono::seconds(5);
  const bool ready = WaitFor(
      [&] {
        auto response = transport.Send(probe);
        return response && response->status == 200;
      },
      std::chrono::minutes(1));
  if (!ready) throw std::runtime_error("the vLLM simulator did not become ready in 1 minute:\n" + Tail(Log()));
}

NetnsVllmSim::~NetnsVllmSim() { sim_.reset(); }

void NetnsVllmSim::Stop() {
  if (sim_) sim_->Stop();
}

std::string NetnsVllmSim::Log() const { return sim_ ? sim_->ReadOut() + sim_->ReadErr() : ""; }

nlohmann::json NetnsVllmSim::PostDirect(const std::string& path, const nlohmann::json& body) const {
  http::CurlOptions curl_options;
  curl_options.plain_http_host = ip();
  http::CurlTransport transport(curl_options);
  http::Request request;
  request.method = "POST";
  request.url = "http://" + ip() + ":" + std::to_string(kHttpPort) + path;
  request.headers = {{"Content-Type", "application/json"}};
  request.body = body.dump();
  request.timeout = std::chrono::minutes(1);
  auto response = transport.Send(request);
  if (!response) throw std::runtime_error("direct " + path + " failed: " + response.error().message);
  auto answer = nlohmann::json::parse(response->body);
  answer["http_status"] = response->status;
  return answer;
}

}  // namespace tputrain::testing
