#include "k8s/netns_jetstream.h"

#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "tputrain/core/env.h"
#include "tputrain/http/curl_transport.h"

namespace tputrain::testing {
namespace {

namespace fs = std::filesystem;

std::string Tail(const std::string& text, std::size_t bytes = 3000) {
  return text.size() > bytes ? text.substr(text.size() - bytes) : text;
}

}  // namespace

NetnsJetStream::NetnsJetStream(bool wait_healthy) : host_("js", 249) {
  auto env = core::Env::FromProcess();
  const std::string cache = env.GetOr("TPUTRAIN_TEST_CACHE", env.Home() + "/.cache/tputrain-test");
  const std::string engine_venv = cache + "/maxtext";
  const std::string http_venv = cache + "/jetstream-http";
  if (!fs::exists(engine_venv + "/.jetstream-stamp") || !fs::exists(http_venv + "/bin/uvicorn")) {
    throw std::runtime_error("no JetStream peer in " + cache + ": run scripts/peers/jetstream.sh");
  }
  const std::string maxtext = engine_venv + "/lib/python3.12/site-packages/maxtext";
  // ../shared beside the checkout, or TPUTRAIN_SHARED_DIR (a git worktree elsewhere).
  const std::string http_server_dir =
      env.GetOr("TPUTRAIN_SHARED_DIR", std::string(TPUTRAIN_SOURCE_DIR) + "/../shared") + "/peers/jetstream-http";
  std::string pattern = "/tmp/trjs-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  work_dir_ = pattern;

  // The notes' tiny model: two layers, 64-wide, random weights from PRNGKey(0), so the same prompt
  // always gives the same text; LOG_LEVEL=INFO makes the seed's milestone lines appear.
  ProcessOptions engine;
  engine.argv = {engine_venv + "/bin/python",
                 "-m",
                 "maxtext.inference.maxengine.maxengine_server",
                 maxtext + "/configs/base.yml",
                 "run_name=serve",
                 "base_output_directory=" + work_dir_ + "/out",
                 "tokenizer_path=" + maxtext + "/assets/tokenizers/tokenizer.llama2",
                 "vocab_size=32000",
                 "base_emb_dim=64",
                 "base_num_query_heads=2",
                 "base_num_kv_heads=2",
                 "base_mlp_dim=128",
                 "base_num_decoder_layers=2",
                 "head_dim=32",
                 "per_device_batch_size=1",
                 "max_prefill_predict_length=16",
                 "max_target_length=48",
                 "hardware=cpu",
                 "skip_jax_distributed_system=true",
                 "enable_checkpointing=false",
                 "jax_cache_dir=" + work_dir_ + "/jax_cache",
                 "enable_model_warmup=true"};
  engine.env = {{"JAX_PLATFORMS", "cpu"}, {"LOG_LEVEL", "INFO"}, {"PYTHONDONTWRITEBYTECODE", "1"}};
  engine.working_dir = work_dir_;
  ProcessOptions http;
  http.argv = {http_venv + "/bin/uvicorn", "http_server:app", "--host=0.0.0.0", "--port=" + std::to_string(kHttpPort)};
  http.env = {{"PYTHONDONTWRITEBYTECODE", "1"}};
  http.working_dir = http_server_dir;  // the upstream file, run where it lies, never copied
  engine_ = host_.Start(engine);
  http_ = host_.Start(http);

  if (wait_healthy) WaitHealthy();
}

void NetnsJetStream::WaitHealthy() const {
  // Plain http to the namespace's address, as the kubelet's probe would: allowed for this host only.
  http::CurlOptions curl_options;
  curl_options.plain_http_host = ip();
  http::CurlTransport transport(curl_options);
  http::Request probe;
  probe.url = "http://" + ip() + ":" + std::to_string(kHttpPort) + "/healthcheck";
  probe.timeout = std::chrono::seconds(5);
  const bool ready = WaitFor(
      [&] {
        auto response = transport.Send(probe);
        return response && response->status == 200;
      },
      std::chrono::minutes(4));
  if (!ready) {
    throw std::runtime_error("JetStream did not become healthy in 4 minutes; engine log:\n" + Tail(EngineLog()) +
                             "\njetstream-http:\n" + Tail(http_->ReadErr()));
  }
}

std::string NetnsJetStream::HttpLog() const { return http_->ReadOut() + http_->ReadErr(); }

std::string NetnsJetStream::GenerateDirect(const std::string& prompt, int max_tokens) const {
  http::CurlOptions curl_options;
  curl_options.plain_http_host = ip();
  http::CurlTransport transport(curl_options);
  http::Request request;
  request.method = "POST";
  request.url = "http://" + ip() + ":" + std::to_string(kHttpPort) + "/generate";
  request.headers = {{"Content-Type", "application/json"}};
  request.body = nlohmann::json{{"prompt", prompt}, {"max_tokens", max_tokens}}.dump();
  request.timeout = std::chrono::minutes(2);
  auto response = transport.Send(request);
  if (!response || response->status != 200) throw std::runtime_error("direct /generate failed");
  return nlohmann::json::parse(response->body).at("response").get<std::string>();
}

NetnsJetStream::~NetnsJetStream() {
  http_.reset();
  engine_.reset();
  std::error_code ignored;
  fs::remove_all(work_dir_, ignored);
}

std::string NetnsJetStream::EngineLog() const { return engine_->ReadOut() + engine_->ReadErr(); }

void NetnsJetStream::StopEngine() { engine_->Stop(); }

}  // namespace tputrain::testing
