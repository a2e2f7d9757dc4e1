#pragma once

// What the TPU VM Ray rehearsals share: the peer venvs the emulator's netns hosts run, tputrain
// pointed at the emulator's IAP relay, and a page read through a loopback tunnel.
#include <chrono>
#include <string>
#include <vector>

#include "testing/scoped_process.h"
#include "tputrain/core/env.h"
#include "tputrain/http/curl_transport.h"
#include "workflow/emulator_env.h"

namespace tputrain::workflow::testing {

// A test peer's venv (scripts/peers/NAME.sh): what the hosts run as --host-path.
inline std::string PeerVenv(const std::string& name) {
  auto env = core::Env::FromProcess();
  return env.GetOr("TPUTRAIN_TEST_CACHE", env.Home() + "/.cache/tputrain-test") + "/" + name;
}

// tputrain ARGS with the emulator's environment and its IAP relay (as gcloud's
// --iap-tunnel-url-override), the way a user's shell has it after `eval`.
inline ProcessOptions ThroughIapOptions(EmulatorEnv& env, const std::vector<std::string>& args) {
  ProcessOptions options;
  options.argv = {tputrain::testing::TputrainBinary()};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.env = env.Environment();
  options.env["TPUTRAIN_IAP_TUNNEL_URL"] = env.Exported("TPUTRAIN_IAP_TUNNEL_URL");
  options.env["CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE"] = env.Exported("CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE");
  options.env["RAY_ADDRESS"] = std::nullopt;
  return options;
}

inline ProcessResult ThroughIap(EmulatorEnv& env, const std::vector<std::string>& args) {
  return tputrain::testing::RunProcess(ThroughIapOptions(env, args), std::chrono::seconds(600));
}

// GET / on a loopback address a tunnel printed ("127.0.0.1:PORT").
inline core::Result<http::Response> LoopbackPage(const std::string& listening) {
  http::CurlTransport local;
  http::Request page;
  page.url = "http://" + listening + "/";
  page.timeout = std::chrono::seconds(30);
  return local.Send(page);
}

}  // namespace tputrain::workflow::testing
