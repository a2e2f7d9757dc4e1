#pragma once

#include <map>
#include <optional>
#include <string>

#include "testing/netns_host.h"

namespace tputrain::testing {

// A real Ray head inside a network namespace that the test creates (a veth pair with a /30),
// so that the API server's service proxy, which refuses loopback backends, can reach it. The
// head, the namespace and the veth are removed on destruction, whatever happened: the processes
// `ip netns pids` lists are ended (TERM, a bounded wait, KILL), and no others. Tests using it
// hold the CTest RESOURCE_LOCK "ray_head": a head and its jobs take both cores of a CI machine.
class NetnsRayHead {
 public:
  // `venv`: where Ray is installed (empty: the Ray peer, $TPUTRAIN_TEST_CACHE/ray); its Python
  // runs the jobs. Throws std::runtime_error with Ray's output on failure.
  explicit NetnsRayHead(const std::string& venv = "");
  ~NetnsRayHead();
  NetnsRayHead(const NetnsRayHead&) = delete;
  NetnsRayHead& operator=(const NetnsRayHead&) = delete;

  const std::string& ip() const { return host_.ip(); }  // the head's address in the namespace
  static constexpr int kDashboardPort = 8265;

 private:
  void RemoveTempDir();

  NetnsHost host_;  // the namespace: the head's daemons run in it, and are ended by its PIDs
  std::string ray_bin_;
  std::string temp_dir_;
};

}  // namespace tputrain::testing
