#pragma once

#include <memory>
#include <string>

#include "testing/netns_host.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {

// Seed 002's serving pod, for real, on CPU: MaxText's JetStream engine (maxengine_server, a tiny
// random-weight model with the llama2 tokenizer) and the upstream jetstream-http front end on
// port 8000, both in one network namespace as the pod's two containers share one. Installed by
// scripts/peers/jetstream.sh; ../shared/notes/serving.md has the facts. Start-up takes ~30-50 s
// (1.6 GB of RSS); the constructor returns once /healthcheck answers 200, or throws with the
// engine's last log lines.
class NetnsJetStream {
 public:
  // `wait_healthy`: return once /healthcheck answers 200 (else at once, the engine still loading).
  explicit NetnsJetStream(bool wait_healthy = true);
  ~NetnsJetStream();
  NetnsJetStream(const NetnsJetStream&) = delete;
  NetnsJetStream& operator=(const NetnsJetStream&) = delete;
  const std::string& ip() const { return host_.ip(); }
  static constexpr int kHttpPort = 8000;
  // The engine's output so far (its log milestones: "Loaded all weights.", "Server up ...").
  std::string EngineLog() const;
  // Ends the engine only: jetstream-http stays and answers 500 for what needs it.
  void StopEngine();
  // Waits until /healthcheck answers 200; throws with the engine's last log lines if it does not.
  void WaitHealthy() const;
  // jetstream-http's access log ("GET /healthcheck HTTP/1.1" 500 ...), on its stderr.
  std::string HttpLog() const;
  // POST /generate straight to the pod's address, past the API server: the reference answer.
  std::string GenerateDirect(const std::string& prompt, int max_tokens) const;

 private:
  NetnsHost host_;
  std::string work_dir_;
  std::unique_ptr<ScopedProcess> engine_;
  std::unique_ptr<ScopedProcess> http_;
};

}  // namespace tputrain::testing
