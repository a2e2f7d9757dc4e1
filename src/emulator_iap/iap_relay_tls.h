#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <string>

#include "tputrain/core/result.h"

// The relay's TLS: a CA the emulator makes at start (its PEM handed to clients through
// CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE) and a server certificate it signs for 127.0.0.1 and
// localhost. Both keys live only in this process.
namespace tputrain::emulator {

struct SslContextDeleter {
  void operator()(SSL_CTX* context) const { SSL_CTX_free(context); }
};
using SslContextPtr = std::unique_ptr<SSL_CTX, SslContextDeleter>;

struct RelayTls {
  std::string ca_pem;
  SslContextPtr server_context;  // serves the signed certificate
};

core::Result<RelayTls> MakeRelayTls();

}  // namespace tputrain::emulator
