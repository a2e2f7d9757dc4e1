#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tputrain/core/clock.h"
#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"
#include "tputrain/k8s/credentials.h"
#include "tputrain/k8s/kubeconfig.h"

namespace tputrain::k8s {

// A Kubernetes API error as one or more clear lines, from the server's Status object:
// a 422 lists one line per field cause, the server-side apply 500 "failed to create typed
// patch object" (a wrong type or unknown field) becomes one line, a 409 names the other field
// manager. `what` names the object ("RayCluster default/ray").
core::Error ErrorFromStatus(int http_status, const std::string& body, const std::string& what);

struct ClientOptions {
  std::chrono::milliseconds request_timeout{60'000};
};

// Talks to one API server through an injected Transport: the composition root's stack for this
// cluster (its CA and client certificate, the bearer credential refreshed on expiry or 401,
// retries, logging, dry-run), so the client itself only builds paths and reads Status errors.
// A request whose query says dryRun=All is marked as a server dry run.
class Client {
 public:
  Client(http::Transport& transport, std::string server, std::string default_namespace = "default",
         ClientOptions options = {});

  const std::string& server() const { return server_; }
  const std::string& default_namespace() const { return default_namespace_; }

  // A raw request to `path` (starting with '/'); 4xx/5xx come back as a Response.
  core::Result<http::Response> Send(const std::string& method, const std::string& path, const std::string& body = "",
                                    const std::string& content_type = "application/json");
  // GET and parse; a non-2xx reply becomes ErrorFromStatus.
  core::Result<nlohmann::json> GetJson(const std::string& path, const std::string& what);
  // Streams a long response (a watch) line by line to `on_line`; returning false stops.
  core::Result<http::Response> StreamLines(const std::string& path, std::chrono::milliseconds timeout,
                                           const std::function<bool(std::string_view)>& on_line);
  // Streams a long response (a followed log) chunk by chunk as it arrives, accepting any media
  // type; a cancelled `cancel` ends it within about a second (kCancelled). Timeout 0: none.
  core::Result<http::Response> StreamChunks(const std::string& path, std::chrono::milliseconds timeout,
                                            const core::CancelToken* cancel, const http::ChunkHandler& on_chunk);

  http::Transport& transport() { return transport_; }

 private:
  core::Result<http::Request> Build(const std::string& method, const std::string& path, const std::string& body,
                                    const std::string& content_type);

  http::Transport& transport_;
  std::string server_;
  std::string default_namespace_;
  ClientOptions options_;
};

// The transport options (CA, client certificate) a CurlTransport needs for this cluster.
struct TlsMaterial {
  std::string ca_pem;
  std::string client_cert_pem;
  std::string client_key_pem;
};
TlsMaterial TlsFor(const ClusterAccess& access, const Credentials& credentials);

}  // namespace tputrain::k8s
