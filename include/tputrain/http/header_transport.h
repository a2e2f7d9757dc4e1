#pragma once

#include "tputrain/http/transport.h"

namespace tputrain::http {

// Adds fixed headers to every request (a caller's header of the same name wins): the quota
// project gcloud sends as x-goog-user-project when billing/quota_project is set.
class HeaderTransport final : public Transport {
 public:
  HeaderTransport(Transport& inner, Headers headers) : inner_(inner), headers_(std::move(headers)) {}

  core::Result<Response> Send(const Request& request) override { return inner_.Send(With(request)); }
  core::Result<Response> Stream(const Request& request, const ChunkHandler& on_chunk) override {
    return inner_.Stream(With(request), on_chunk);
  }

 private:
  Request With(const Request& request) const {
    Request out = request;
    for (const auto& header : headers_) {
      if (!FindHeader(out.headers, header.first)) out.headers.push_back(header);
    }
    return out;
  }

  Transport& inner_;
  Headers headers_;
};

}  // namespace tputrain::http
