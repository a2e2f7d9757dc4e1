#pragma once

#include <mutex>
#include <ostream>

#include "tputrain/core/redact.h"
#include "tputrain/http/transport.h"

namespace tputrain::http {

// --dry-run for API calls. A mutating request (POST, PUT, PATCH, DELETE) is printed exactly,
// "<METHOD> <URL>" and then its body, through `redactor`, and never sent; it is answered with
// 200, an empty JSON object and the header "X-Tputrain-Dry-Run: true", so a workflow can tell
// that nothing was created and skip waiting on an operation.
// GET and HEAD pass through to `inner`: reads change nothing, and a plan that reads what
// already exists shows only the changes that would really be made. So do requests marked
// `server_dry_run` (Kubernetes dryRun=All): the server validates them and persists nothing.
class DryRunTransport final : public Transport {
 public:
  DryRunTransport(Transport& inner, std::ostream& out, const core::Redactor& redactor);

  core::Result<Response> Send(const Request& request) override;
  core::Result<Response> Stream(const Request& request, const ChunkHandler& on_chunk) override;

  static bool IsMutating(const Request& request);
  static bool IsDryRunReply(const Response& response);

 private:
  Response Print(const Request& request);

  Transport& inner_;
  std::ostream& out_;
  const core::Redactor& redactor_;
  std::mutex mutex_;
};

}  // namespace tputrain::http
