#pragma once

#include <memory>
#include <string>
#include <vector>

#include "testing/scoped_process.h"

namespace tputrain::testing {

// A network namespace joined to the machine by a veth /30, standing in for a pod or a host that
// the machine reaches by address (the API server's proxy refuses loopback endpoints). Processes
// started in it are ended by the namespace's PIDs (`ip netns pids`), never by name; the
// namespace and its link are removed on destruction. Needs root and iproute2.
class NetnsHost {
 public:
  // `tag`: a few letters naming the user in interface names (they are limited to 15 characters);
  // `subnet`: the second octet of its 10.X.0.0/16 (one per fixture kind, so they never collide).
  NetnsHost(const std::string& tag, int subnet);
  ~NetnsHost();
  NetnsHost(const NetnsHost&) = delete;
  NetnsHost& operator=(const NetnsHost&) = delete;

  const std::string& name() const { return netns_; }
  const std::string& ip() const { return ns_ip_; }  // the namespace's address

  // Starts `options.argv` inside the namespace (`ip netns exec`), in the background.
  std::unique_ptr<ScopedProcess> Start(ProcessOptions options) const;
  // Ends every process in the namespace (TERM, a bounded wait, KILL), by its PIDs; the namespace
  // stays. Also done on destruction.
  void EndProcesses() const;

 private:
  void Teardown();

  std::string netns_;
  std::string host_veth_;
  std::string ns_ip_;
};

}  // namespace tputrain::testing
