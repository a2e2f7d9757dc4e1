#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "testing/netns_host.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {

// A SIMULATOR of vLLM's OpenAI-compatible server, as the pod behind a vLLM Service would be:
// llm-d-inference-sim (the llm-d project's; real vLLM does not install on these CPU machines),
// built by scripts/peers/vllm-sim.sh, serving model `kModel` in echo mode (an answer repeats the
// prompt, or the last user message) on port 8000 in its own network namespace. The constructor
// returns once the simulator says it is ready (its /health/ready, which vLLM itself lacks); the
// destructor stops it by its PID. With `start` false, only the namespace is made: its address
// refuses connections (as vLLM's port does while it loads its model) until Start().
class NetnsVllmSim {
 public:
  explicit NetnsVllmSim(bool start = true);
  ~NetnsVllmSim();
  NetnsVllmSim(const NetnsVllmSim&) = delete;
  NetnsVllmSim& operator=(const NetnsVllmSim&) = delete;

  static constexpr int kHttpPort = 8000;
  static constexpr const char* kModel = "tiny-test";
  const std::string& ip() const { return host_.ip(); }
  std::string Log() const;
  // Ends the simulator by its PID: its port closed, as vLLM's is while it loads its model.
  void Stop();
  // Starts the simulator and returns once it is ready.
  void Start();

  // POST `path` with `body` straight to the simulator, past the API server: the reference answer
  // (a whole one; the test compares the text and usage tputrain printed).
  nlohmann::json PostDirect(const std::string& path, const nlohmann::json& body) const;

 private:
  NetnsHost host_;
  std::unique_ptr<ScopedProcess> sim_;
};

}  // namespace tputrain::testing
