#include "k8s/netns_saxml.h"

#include <filesystem>
#include <stdexcept>

#include "tputrain/core/env.h"
#include "tputrain/http/curl_transport.h"

namespace tputrain::testing {
namespace {

namespace fs = std::filesystem;

std::string Tail(const std::string& text, std::size_t bytes = 3000) {
  return text.size() > bytes ? text.substr(text.size() - bytes) : text;
}

std::string FakeSaxDir() { return std::string(TPUTRAIN_SOURCE_DIR) + "/tests/testing/fake_sax"; }

ProcessOptions UpstreamFastApi() {
  auto env = core::Env::FromProcess();
  const std::string cache = env.GetOr("TPUTRAIN_TEST_CACHE", env.Home() + "/.cache/tputrain-test");
  // The jetstream-http venv already has every module http_server.py imports but `sax`.
  const std::string venv = cache + "/jetstream-http";
  if (!fs::exists(venv + "/bin/uvicorn")) {
    throw std::runtime_error("no sax-http peer in " + cache + ": run scripts/peers/saxml-http.sh");
  }
  ProcessOptions http;
  http.argv = {venv + "/bin/uvicorn", "http_server:app", "--host=0.0.0.0",
               "--port=" + std::to_string(NetnsSaxHttp::kHttpPort)};
  // Run where it lies: ../shared beside the checkout, or TPUTRAIN_SHARED_DIR (a git worktree elsewhere).
  http.working_dir =
      env.GetOr("TPUTRAIN_SHARED_DIR", std::string(TPUTRAIN_SOURCE_DIR) + "/../shared") + "/peers/saxml-http";
  return http;
}

ProcessOptions StdlibV1() {
  ProcessOptions http;
  http.argv = {"python3", "sax_http_v1.py", std::to_string(NetnsSaxHttp::kHttpPort)};
  http.working_dir = FakeSaxDir();
  return http;
}

}  // namespace

NetnsSaxHttp::NetnsSaxHttp(SaxHttpVariant variant, double load_seconds) : variant_(variant), host_("sax", 246) {
  ProcessOptions http = variant == SaxHttpVariant::kUpstreamFastApi ? UpstreamFastApi() : StdlibV1();
  http.env["PYTHONPATH"] = FakeSaxDir();  // the fake `sax`, found as `import sax`
  http.env["FAKE_SAX_LOAD_SECONDS"] = std::to_string(load_seconds);
  http.env["FAKE_SAX_MODEL_PATHS"] = std::nullopt;  // the fake's default lm_cloud paths, whatever the shell has
  http.env["PYTHONDONTWRITEBYTECODE"] = "1";        // no __pycache__ in the source tree or ../shared
  http.env["PYTHONUNBUFFERED"] = "1";               // Log() sees each line as it is written
  http_ = host_.Start(http);
  WaitAnswering();
}

NetnsSaxHttp::~NetnsSaxHttp() { http_.reset(); }

void NetnsSaxHttp::WaitAnswering() const {
  bool exited = false;
  const bool answering = WaitFor(
      [&] {
        exited = !http_->running();  // a bad venv or a busy port: say so now, not in a minute
        if (exited) return true;
        try {
          return Direct("GET", "/").status == 200;
        } catch (const std::runtime_error&) {
          return false;  // not listening yet
        }
      },
      std::chrono::seconds(60));
  if (exited || !answering) {
    throw std::runtime_error(std::string("sax-http ") + (exited ? "exited" : "did not answer GET / in 60 s") +
                             "; its log:\n" + Tail(Log()));
  }
}

std::string NetnsSaxHttp::Log() const { return http_->ReadOut() + http_->ReadErr(); }

SaxHttpAnswer NetnsSaxHttp::Direct(const std::string& method, const std::string& path,
                                   const nlohmann::json& body) const {
  // Plain http to the namespace's address only, as a kubelet's probe or a port-forward would go.
  http::CurlOptions curl_options;
  curl_options.plain_http_host = ip();
  http::CurlTransport transport(curl_options);
  http::Request request;
  request.method = method;
  request.url = "http://" + ip() + ":" + std::to_string(kHttpPort) + path;
  if (!body.is_null()) {
    request.headers = {{"Content-Type", "application/json"}};
    request.body = body.dump();
  }
  request.timeout = std::chrono::seconds(10);
  auto response = transport.Send(request);
  if (!response) throw std::runtime_error(method + " " + path + ": " + response.error().message);
  return {response->status, response->body, response->Header("Content-Type").value_or("")};
}

}  // namespace tputrain::testing
