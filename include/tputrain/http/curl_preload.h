#pragma once

#include <thread>

#include "tputrain/core/timeline.h"

namespace tputrain::http {

// Opens libcurl on a thread of its own from construction: loading it and the ~35 libraries it
// brings, and OpenSSL's set-up, take about 5 ms of CPU, which a command that will send a request
// then spends beside building its command tree, parsing flags and resolving its configuration
// and credentials instead of before its first request; that request waits only for what is
// left. Destruction waits for the thread (a process must not exit while a library loads).
class CurlPreload {
 public:
  explicit CurlPreload(core::Timeline* timeline = nullptr);
  ~CurlPreload();
  CurlPreload(const CurlPreload&) = delete;
  CurlPreload& operator=(const CurlPreload&) = delete;

 private:
  std::thread thread_;
};

}  // namespace tputrain::http
