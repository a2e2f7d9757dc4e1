#include "tputrain/http/dry_run_transport.h"

#include "tputrain/core/redact.h"

namespace tputrain::http {

DryRunTransport::DryRunTransport(Transport& inner, std::ostream& out, const core::Redactor& redactor)
    : inner_(inner), out_(out), redactor_(redactor) {}

bool DryRunTransport::IsMutating(const Request& request) {
  return request.method != "GET" && request.method != "HEAD" && !request.server_dry_run && !request.reads_only;
}

bool DryRunTransport::IsDryRunReply(const Response& response) {
  return response.Header("x-tputrain-dry-run").value_or("") == "true";
}

Response DryRunTransport::Print(const Request& request) {
  std::string text = request.method + " " + request.url + "\n";
  if (!request.body.empty()) text += request.body + "\n";
  {
    std::lock_guard lock(mutex_);
    out_ << redactor_(text) << std::flush;
  }
  Response response;
  response.status = 200;
  response.headers = {{"Content-Type", "application/json"}, {"X-Tputrain-Dry-Run", "true"}};
  response.body = "{}";
  return response;
}

core::Result<Response> DryRunTransport::Send(const Request& request) {
  if (IsMutating(request)) return Print(request);
  return inner_.Send(request);
}

core::Result<Response> DryRunTransport::Stream(const Request& request, const ChunkHandler& on_chunk) {
  if (IsMutating(request)) {
    auto response = Print(request);
    on_chunk(response.body);
    response.body.clear();
    return response;
  }
  return inner_.Stream(request, on_chunk);
}

}  // namespace tputrain::http
