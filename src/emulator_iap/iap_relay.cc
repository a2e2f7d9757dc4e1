#include "tputrain/emulator_iap/iap_relay.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "iap_relay_connection.h"
#include "iap_relay_tls.h"

namespace tputrain::emulator {

struct IapRelay::Listener {
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };

  Listener(RelayTls relay_tls, Resolver resolve, std::string path, int fd, int listening_port)
      : tls(std::move(relay_tls)), ca_path(std::move(path)), listen_fd(fd), port(listening_port) {
    context.tls = tls.server_context.get();
    context.sessions = &sessions;
    context.resolve = [resolve = std::move(resolve)](const IapUpgrade& upgrade) {
      return resolve(IapInstance{upgrade.project, upgrade.zone, upgrade.instance});
    };
    context.stopping = &stopping;
    context.reauthentications = &reauthentications;
  }

  ~Listener() {
    stopping = true;
    if (acceptor.joinable()) acceptor.join();
    for (auto& worker : workers) worker.thread.join();  // each sees `stopping` within a poll round
    close(listen_fd);
    std::error_code ignored;
    std::filesystem::remove(ca_path, ignored);
  }

  void AcceptLoop() {
    while (!stopping) {
      pollfd listening{listen_fd, POLLIN, 0};
      if (poll(&listening, 1, 100) <= 0) continue;
      int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      // Finished connections' threads are joined as new ones come, so they do not pile up.
      for (auto it = workers.begin(); it != workers.end();) {
        if (!it->done->load()) {
          ++it;
          continue;
        }
        it->thread.join();
        it = workers.erase(it);
      }
      auto done = std::make_shared<std::atomic<bool>>(false);
      workers.push_back({std::thread([this, fd, done] {
                           ServeIapRelayConnection(fd, context);
                           *done = true;
                         }),
                         done});
    }
  }

  RelayTls tls;
  IapRelaySessions sessions;
  std::atomic<bool> stopping{false};
  std::atomic<uint64_t> reauthentications{0};
  IapRelayContext context;
  std::string ca_path;
  int listen_fd;
  int port;
  std::thread acceptor;
  std::vector<Worker> workers;  // the acceptor's own, until destruction joins them
};

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
  auto listener =
      std::make_unique<Listener>(std::move(*tls), std::move(resolve), std::move(ca_path), fd, ntohs(address.sin_port));
  listener->acceptor = std::thread([raw = listener.get()] { raw->AcceptLoop(); });
  return std::unique_ptr<IapRelay>(new IapRelay(std::move(listener)));
}

IapRelay::IapRelay(std::unique_ptr<Listener> listener) : listener_(std::move(listener)) {}

IapRelay::~IapRelay() = default;

std::string IapRelay::url() const { return "wss://127.0.0.1:" + std::to_string(listener_->port); }

const std::string& IapRelay::ca_path() const { return listener_->ca_path; }

size_t IapRelay::RequestReauthentication() {
  ++listener_->reauthentications;
  return listener_->sessions.size();
}

}  // namespace tputrain::emulator
