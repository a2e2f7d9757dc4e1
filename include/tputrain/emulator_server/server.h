#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "tputrain/core/cancel.h"
#include "tputrain/core/result.h"
#include "tputrain/emulator/config.h"

// The tputrain-emulator program's serving: the API fake over HTTP, and with --tpu-hosts netns the
// hosts, their metadata server and the IAP relay.
namespace tputrain::emulator {

// The `export CLOUDSDK_API_ENDPOINT_OVERRIDES_...=...` lines that point gcloud at `base_url`.
std::vector<std::string> EndpointOverrideLines(const std::string& base_url);

// Serves the emulator in the foreground until `cancel` is set (SIGINT/SIGTERM); prints the base
// URL, the override lines and the access-token line to `out` once it listens. Returns the exit code.
core::Result<int> RunEmulator(const StartOptions& options, const core::CancelToken& cancel, std::ostream& out,
                              std::ostream& err);

}  // namespace tputrain::emulator
