#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "testing/netns_host.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {

// Which sax-http front end answers. Both sit on the FAKE `sax` client
// (tests/testing/fake_sax/sax.py): Saxml itself cannot run here, so no model is served.
enum class SaxHttpVariant {
  // ai-on-gke's FastAPI http_server.py (../shared/peers/saxml-http), run unchanged where it lies:
  // real routing, validation and error shapes (500 {"detail"}, 422 for a bad body).
  kUpstreamFastApi,
  // tests/testing/fake_sax/sax_http_v1.py: the project's stdlib server with the older v1.0.0
  // shapes (400 {"Error"}, {"generate_response": [...]}, the published path echoed as "path").
  kStdlibV1,
};

// One HTTP exchange with the server, as it answered.
struct SaxHttpAnswer {
  int status = 0;
  std::string body;
  std::string content_type;  // empty when the server sent none (the v1 server never does)
  nlohmann::json Json() const { return nlohmann::json::parse(body); }
};

// Saxml's sax-http Deployment for tests: the server on port 8888 in a network namespace of its
// own, as the pod behind the sax-http Service (the API server's proxy refuses loopback backends).
// The FastAPI variant runs from the jetstream-http peer venv (fastapi, uvicorn, pydantic: all
// http_server.py imports besides `sax`), which scripts/peers/saxml-http.sh checks; the stdlib
// variant needs python3 only. The constructor returns once GET / answers 200 (about a second),
// or throws with the server's last log lines. One at a time per test process: the namespace is
// named after the PID. Root, iproute2.
class NetnsSaxHttp {
 public:
  // `load_seconds`: how long a published model stays at active_replicas 0 (negative: forever),
  // the fake's FAKE_SAX_LOAD_SECONDS.
  explicit NetnsSaxHttp(SaxHttpVariant variant, double load_seconds = 3);
  ~NetnsSaxHttp();
  NetnsSaxHttp(const NetnsSaxHttp&) = delete;
  NetnsSaxHttp& operator=(const NetnsSaxHttp&) = delete;

  static constexpr int kHttpPort = 8888;
  const std::string& ip() const { return host_.ip(); }
  SaxHttpVariant variant() const { return variant_; }
  // The server's output so far: its access log, tracebacks, and the fake's "loading completed."
  std::string Log() const;
  // METHOD path with `body` as JSON (none when null), straight to the namespace's address, past
  // any API server: the reference answer. Throws only when nothing answers.
  SaxHttpAnswer Direct(const std::string& method, const std::string& path, const nlohmann::json& body = nullptr) const;

 private:
  void WaitAnswering() const;

  SaxHttpVariant variant_;
  NetnsHost host_;
  std::unique_ptr<ScopedProcess> http_;
};

}  // namespace tputrain::testing
