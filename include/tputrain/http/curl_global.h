#pragma once

namespace tputrain::http {

// libcurl's process-wide set-up, held by main for the life of the process.
class CurlGlobal {
 public:
  CurlGlobal();
  ~CurlGlobal();
  CurlGlobal(const CurlGlobal&) = delete;
  CurlGlobal& operator=(const CurlGlobal&) = delete;
};

}  // namespace tputrain::http
