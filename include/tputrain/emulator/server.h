#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/cancel.h"
#include "tputrain/core/result.h"
#include "tputrain/emulator/handlers.h"
#include "tputrain/http/transport.h"

namespace tputrain::emulator {

inline constexpr int kDefaultPort = 8780;

// `tputrain emulator start` flags, as typed; MakeConfig checks them (usage errors, exit 2).
struct StartOptions {
  std::string host = "127.0.0.1";
  int port = kDefaultPort;  // 0: any free port
  std::string op_latency = "2s";
  std::string stuck_for;  // empty or "0": stuck operations never finish
  std::string state_file;
  std::string faults;
  uint64_t seed = 0;
  std::string cluster_endpoint;            // URL or host[:port] that created clusters report
  std::string cluster_ca_file;             // PEM file that created clusters report as their CA
  std::vector<std::string> disabled_apis;  // answer SERVICE_DISABLED until enabled
  std::string tpu_hosts = "paper";         // "netns": READY TPU VMs' hosts boot as network namespaces
  std::string host_path;                   // with netns: a directory whose bin/ leads the hosts' PATH
};

core::Result<EmulatorConfig> MakeConfig(const StartOptions& options);

// The `export CLOUDSDK_API_ENDPOINT_OVERRIDES_...=...` lines that point gcloud at `base_url`.
std::vector<std::string> EndpointOverrideLines(const std::string& base_url);

// Serves the emulator in the foreground until `cancel` is set (SIGINT/SIGTERM); prints the base
// URL and the override lines to `out` once it listens. Returns the exit code.
core::Result<int> RunEmulator(const StartOptions& options, const core::CancelToken& cancel, std::ostream& out,
                              std::ostream& err);

// GET <url>/_emulator/state: every resource a running emulator holds.
core::Result<nlohmann::json> FetchState(http::Transport& transport, const std::string& url);

}  // namespace tputrain::emulator
