#pragma once

#include <string>
#include <vector>

#include "testing/scoped_process.h"
#include "tputrain/k8s/client.h"

namespace tputrain::testing {

// `tputrain serve ...` against one namespace's kubeconfig, with a state directory of its own.
struct ServeRun {
  std::string kubeconfig;
  std::string state_dir;
  // `ledgered`: the command records in the run ledger (serve up, serve down).
  ProcessOptions Options(std::vector<std::string> args, bool ledgered = true) const {
    ProcessOptions options;
    options.argv = {TputrainBinary()};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.argv.insert(options.argv.end(), {"--kubeconfig", kubeconfig});
    if (ledgered) options.argv.insert(options.argv.end(), {"--state-dir", state_dir, "--run", "r-serve"});
    options.env = {{"TPUTRAIN_BUCKET", "serve-ckpt"}, {"TPUTRAIN_RUN", std::nullopt}};
    return options;
  }
};

inline bool Exists(k8s::Client& admin, const std::string& path) {
  auto response = admin.Send("GET", path, "", "");
  return response && response->status == 200;
}

}  // namespace tputrain::testing
