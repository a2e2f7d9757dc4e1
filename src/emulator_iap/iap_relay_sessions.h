#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

// The tunnelled TCP connections the emulator's IAP relay holds. A session outlives the WebSocket
// that carries it: after a 4004 or a lost connection the client resumes it with /v4/reconnect.
namespace tputrain::emulator {

struct IapRelaySession {
  explicit IapRelaySession(int fd) : target_fd(fd) {}
  ~IapRelaySession();
  IapRelaySession(const IapRelaySession&) = delete;
  IapRelaySession& operator=(const IapRelaySession&) = delete;

  std::string sid;
  int target_fd;                   // the instance's port; closed with the session
  uint64_t from_client = 0;        // bytes received from the client (written or queued in to_target)
  uint64_t from_client_acked = 0;  // what the relay's last ACK said
  std::string to_target;           // from the client, not yet written to the instance
  uint64_t to_client_acked = 0;    // bytes the client acknowledged
  std::string to_client_unacked;   // sent to the client (or to send), not acknowledged: resent on reconnect
  bool target_ended = false;
};

// Thread-safe. A session is used by the one connection that attached it, until it detaches or
// ends it, so its fields need no lock of their own.
class IapRelaySessions {
 public:
  // How long a detached session waits for its reconnect.
  static constexpr std::chrono::seconds kResumeWindow{60};

  // A new session on `target_fd` with a fresh sid, attached.
  std::shared_ptr<IapRelaySession> Add(int target_fd);
  // The detached session `sid`, attached now; nullptr when there is none (unknown, expired, or
  // still carried by another WebSocket).
  std::shared_ptr<IapRelaySession> Attach(const std::string& sid);
  void Detach(const std::shared_ptr<IapRelaySession>& session);
  void End(const std::shared_ptr<IapRelaySession>& session);
  size_t size();

 private:
  struct Entry {
    std::shared_ptr<IapRelaySession> session;
    bool attached = true;
    std::chrono::steady_clock::time_point detached_at;
  };
  void ExpireLocked();

  std::mutex mutex_;
  std::map<std::string, Entry> sessions_;
};

}  // namespace tputrain::emulator
