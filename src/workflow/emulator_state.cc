#include "tputrain/workflow/emulator_state.h"

#include "tputrain/core/file.h"
#include "tputrain/core/json.h"

namespace tputrain::workflow {

core::Result<nlohmann::json> FetchEmulatorState(http::Transport& transport, const std::string& url) {
  std::string base = url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  http::Request request;
  request.url = base + "/_emulator/state";
  request.max_response_bytes = 1024 * core::kMiB;
  auto response = transport.Send(request);
  if (!response) return core::Fail(response.error());
  if (!response->ok()) {
    return core::Fail(core::Error{core::KindFromHttpStatus(response->status),
                                  "emulator answered HTTP " + std::to_string(response->status) + ": " + response->body,
                                  response->status, "", "emulator.state"});
  }
  // The state holds the objects' bytes, as its file does (which the emulator reads up to 512 MiB).
  auto state = core::ParseJson(response->body, request.url, {.max_bytes = 1024 * core::kMiB});
  if (!state) return core::Fail(core::Error::Internal(state.error().message));
  return state;
}

}  // namespace tputrain::workflow
