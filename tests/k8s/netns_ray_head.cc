#include "k8s/netns_ray_head.h"

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "k8s/apiserver_fixture.h"
#include "testing/scoped_process.h"
#include "tputrain/core/env.h"

namespace tputrain::testing {
NetnsRayHead::NetnsRayHead(const std::string& venv_dir) : host_("k8s", 251) {
  auto env = core::Env::FromProcess();
  std::string venv =
      venv_dir.empty() ? env.GetOr("TPUTRAIN_TEST_CACHE", env.Home() + "/.cache/tputrain-test") + "/ray" : venv_dir;
  ray_bin_ = venv + "/bin";
  if (access((ray_bin_ + "/ray").c_str(), X_OK) != 0) {
    throw std::runtime_error("no Ray in " + venv + ": run scripts/peers/ray.sh (or scripts/setup-test-peers.sh)");
  }
  try {
    std::string pattern = "/tmp/trk8ray-XXXXXX";  // short: Ray's socket paths are limited
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    temp_dir_ = pattern;
    ProcessOptions start;
    start.argv = {ray_bin_ + "/ray",
                  "start",
                  "--head",
                  "--node-ip-address",
                  ip(),
                  "--port",
                  "6379",
                  "--dashboard-host",
                  ip(),
                  "--dashboard-port",
                  std::to_string(kDashboardPort),
                  "--num-cpus",
                  "1",
                  "--disable-usage-stats",
                  "--temp-dir",
                  temp_dir_};
    start.env = {{"PATH", ray_bin_ + ":" + env.GetOr("PATH", "/usr/bin:/bin")},
                 {"RAY_USAGE_STATS_ENABLED", "0"},
                 {"RAY_ADDRESS", std::nullopt}};
    // `ray start` returns once its daemons run; they stay in the namespace, ended with it.
    auto starter = host_.Start(start);
    WaitFor([&] { return !starter->running(); }, std::chrono::minutes(3));
    int code = starter->Stop();
    if (code != 0) {
      throw std::runtime_error("ray start in " + host_.name() + " failed:\n" + starter->ReadOut() + starter->ReadErr());
    }
  } catch (...) {
    host_.EndProcesses();
    RemoveTempDir();
    throw;
  }
}

NetnsRayHead::~NetnsRayHead() {
  // The daemons first: they write into the temp dir until they are gone.
  host_.EndProcesses();
  RemoveTempDir();
}

void NetnsRayHead::RemoveTempDir() {
  std::error_code ignored;
  if (!temp_dir_.empty()) std::filesystem::remove_all(temp_dir_, ignored);
  temp_dir_.clear();
}

}  // namespace tputrain::testing
