#pragma once

// A process's command line from /proc, for tests that find the processes they started.
#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace tputrain::testing {

// /proc/PID/cmdline (NUL-separated), "" when the process is gone. Read with read(2): a process
// that exits between open and read fails the read with ESRCH, which a std::ifstream read through
// istreambuf_iterator turns into an exception (it ended a test binary at exit once).
inline std::string ProcCmdline(const std::string& pid) {
  const int fd = open(("/proc/" + pid + "/cmdline").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string text;
  char buffer[4096];
  for (ssize_t got; (got = read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<size_t>(got));
  close(fd);
  return text;
}

}  // namespace tputrain::testing
