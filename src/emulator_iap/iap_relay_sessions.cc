#include "iap_relay_sessions.h"

#include <openssl/rand.h>
#include <unistd.h>

namespace tputrain::emulator {
namespace {

std::string NewSid() {
  unsigned char bytes[16];
  RAND_bytes(bytes, sizeof(bytes));
  static const char kHex[] = "0123456789abcdef";
  std::string sid;
  for (unsigned char byte : bytes) {
    sid += kHex[byte >> 4];
    sid += kHex[byte & 0xF];
  }
  return sid;
}

}  // namespace

IapRelaySession::~IapRelaySession() {
  if (target_fd >= 0) close(target_fd);
}

std::shared_ptr<IapRelaySession> IapRelaySessions::Add(int target_fd) {
  auto session = std::make_shared<IapRelaySession>(target_fd);
  session->sid = NewSid();
  std::lock_guard lock(mutex_);
  ExpireLocked();
  sessions_[session->sid] = Entry{session, true, {}};
  return session;
}

std::shared_ptr<IapRelaySession> IapRelaySessions::Attach(const std::string& sid) {
  std::lock_guard lock(mutex_);
  ExpireLocked();
  auto found = sessions_.find(sid);
  if (found == sessions_.end() || found->second.attached) return nullptr;
  found->second.attached = true;
  return found->second.session;
}

void IapRelaySessions::Detach(const std::shared_ptr<IapRelaySession>& session) {
  std::lock_guard lock(mutex_);
  auto found = sessions_.find(session->sid);
  if (found == sessions_.end()) return;
  found->second.attached = false;
  found->second.detached_at = std::chrono::steady_clock::now();
}

void IapRelaySessions::End(const std::shared_ptr<IapRelaySession>& session) {
  std::lock_guard lock(mutex_);
  sessions_.erase(session->sid);
}

size_t IapRelaySessions::size() {
  std::lock_guard lock(mutex_);
  ExpireLocked();
  return sessions_.size();
}

void IapRelaySessions::ExpireLocked() {
  auto now = std::chrono::steady_clock::now();
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    bool expired = !it->second.attached && now - it->second.detached_at > kResumeWindow;
    it = expired ? sessions_.erase(it) : std::next(it);
  }
}

}  // namespace tputrain::emulator
