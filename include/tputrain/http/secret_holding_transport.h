#pragma once

#include <string_view>

#include "tputrain/core/redact.h"
#include "tputrain/http/transport.h"

namespace tputrain::http {

// Hands the process's Redactor every secret a JSON body carries by name (kSecretFields and the
// Redactor's held fields: a TPU node's Ray token in its metadata, a token a server issues), in
// each request sent and each answer read, before anything above it sees the body. A secret read
// from a server is then redacted wherever it appears later, with or without its name: in an
// error, a progress line, a log. The composition root puts it innermost, over the network, so
// that the logging decorator above it already holds what it prints. Streamed answers (logs,
// downloads) are the reader's and are not scanned.
class SecretHoldingTransport final : public Transport {
 public:
  SecretHoldingTransport(Transport& inner, core::Redactor& redactor) : inner_(inner), redactor_(redactor) {}

  core::Result<Response> Send(const Request& request) override {
    HoldSecretsIn(request.body);
    auto response = inner_.Send(request);
    if (response) HoldSecretsIn(response->body);
    return response;
  }
  core::Result<Response> Stream(const Request& request, const ChunkHandler& on_chunk) override {
    HoldSecretsIn(request.body);
    return inner_.Stream(request, on_chunk);
  }

 private:
  // Only what looks like JSON is scanned: an uploaded archive is not read for field names.
  void HoldSecretsIn(std::string_view body) {
    const auto first = body.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && (body[first] == '{' || body[first] == '[')) redactor_.HoldSecretsIn(body);
  }

  Transport& inner_;
  core::Redactor& redactor_;
};

}  // namespace tputrain::http
