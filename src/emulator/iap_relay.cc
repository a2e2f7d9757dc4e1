#include "iap_relay.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace tputrain::emulator {

core::Result<std::unique_ptr<IapRelay>> IapRelay::Start(Resolver resolve, std::string ca_path) {
  auto tls = MakeRelayTls();
  if (!tls) return core::Fail(tls.error());
  {
    std::ofstream out(ca_path, std::ios::trunc);
    out << tls->ca_pem;
    if (!out.flush()) return core::Fail(core::Error::Internal("IAP relay: cannot write its CA to " + ca_path));
  }
  chmod(ca_path.c_str(), 0644);  // tputrain and gcloud read it, whoever runs them

  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 || listen(fd, 64) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    if (fd >= 0) close(fd);
    return core::Fail(core::Error::Internal("IAP relay: cannot listen on 127.0.0.1"));
  }
  std::unique_ptr<IapRelay> relay(
      new IapRelay(std::move(*tls), std::move(resolve), std::move(ca_path), fd, ntohs(address.sin_port)));
  relay->acceptor_ = std::thread([raw = relay.get()] { raw->AcceptLoop(); });
  return relay;
}

IapRelay::IapRelay(RelayTls tls, Resolver resolve, std::string ca_path, int listen_fd, int port)
    : tls_(std::move(tls)), ca_path_(std::move(ca_path)), listen_fd_(listen_fd), port_(port) {
  context_.tls = tls_.server_context.get();
  context_.sessions = &sessions_;
  context_.resolve = std::move(resolve);
  context_.stopping = &stopping_;
  context_.reauthentications = &reauthentications_;
}

IapRelay::~IapRelay() {
  stopping_ = true;
  if (acceptor_.joinable()) acceptor_.join();
  for (auto& worker : workers_) worker.thread.join();  // each sees stopping_ within a poll round
  close(listen_fd_);
  std::error_code ignored;
  std::filesystem::remove(ca_path_, ignored);
}

std::string IapRelay::url() const { return "wss://127.0.0.1:" + std::to_string(port_); }

size_t IapRelay::RequestReauthentication() {
  ++reauthentications_;
  return sessions_.size();
}

void IapRelay::AcceptLoop() {
  while (!stopping_) {
    pollfd listening{listen_fd_, POLLIN, 0};
    if (poll(&listening, 1, 100) <= 0) continue;
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    // Finished connections' threads are joined as new ones come, so they do not pile up.
    for (auto it = workers_.begin(); it != workers_.end();) {
      if (!it->done->load()) {
        ++it;
        continue;
      }
      it->thread.join();
      it = workers_.erase(it);
    }
    auto done = std::make_shared<std::atomic<bool>>(false);
    workers_.push_back({std::thread([this, fd, done] {
                          ServeIapRelayConnection(fd, context_);
                          *done = true;
                        }),
                        done});
  }
}

}  // namespace tputrain::emulator
