#pragma once

#include <map>
#include <optional>
#include <string>

namespace tputrain::testing {

// A real Ray head on loopback, started with `ray start --head` from a venv that a peer script
// built (scripts/peers/ray.sh). Every port is chosen free and outside Ray's worker range
// 10002-19999 (a --port inside it makes Ray refuse), and the head is torn down by PID: the
// processes whose command line names its own temp dir, then its process group (never
// `ray stop`, which stops every Ray process of the user). Tests that use a head share the CTest
// RESOURCE_LOCK "ray_head": a head and its jobs take both cores of a CI machine.
class RayHead {
 public:
  struct Options {
    std::string venv;  // empty: $TPUTRAIN_TEST_CACHE/ray (default ~/.cache/tputrain-test/ray)
    int num_cpus = 2;
    std::map<std::string, std::optional<std::string>> env;  // for the head and its jobs
  };

  explicit RayHead(Options options);  // throws std::runtime_error, with Ray's output, on failure
  ~RayHead();
  RayHead(const RayHead&) = delete;
  RayHead& operator=(const RayHead&) = delete;

  const std::string& address() const { return address_; }  // http://127.0.0.1:PORT
  const std::string& bin_dir() const { return bin_dir_; }  // the venv's bin: ray, python
  // Environment for a `ray` CLI call against this head (PATH, no usage stats).
  std::map<std::string, std::optional<std::string>> CliEnv() const;

  static std::string DefaultVenv();

 private:
  void Teardown();

  std::string bin_dir_;
  std::string temp_dir_;
  std::string address_;
  std::map<std::string, std::optional<std::string>> env_;
  int process_group_ = -1;
};

// One head per test binary, started on first use and stopped when the binary exits.
RayHead& SharedRayHead();

}  // namespace tputrain::testing
