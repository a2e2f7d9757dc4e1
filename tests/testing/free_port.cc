#include "testing/free_port.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mutex>
#include <set>
#include <stdexcept>

namespace tputrain::testing {

int FreeLoopbackPort() {
  // The kernel may hand the same free port to two binds in a row once the first socket is closed;
  // two peers of one test given the same port would then race for it (KubeRay's metrics and
  // health servers once did, and the operator exited). So a port is handed out once per process.
  static std::mutex mutex;
  static std::set<int> handed_out;
  for (int attempt = 0; attempt < 64; ++attempt) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) throw std::runtime_error("socket() failed");
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
      close(fd);
      throw std::runtime_error("bind() failed");
    }
    socklen_t length = sizeof(address);
    getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    close(fd);
    int port = ntohs(address.sin_port);
    std::lock_guard lock(mutex);
    if (handed_out.insert(port).second) return port;
  }
  throw std::runtime_error("no loopback port that this process has not handed out already");
}

}  // namespace tputrain::testing
