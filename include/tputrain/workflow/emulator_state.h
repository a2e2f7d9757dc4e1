#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"

namespace tputrain::workflow {

// GET <url>/_emulator/state: every resource a running emulator (tputrain-emulator) holds.
core::Result<nlohmann::json> FetchEmulatorState(http::Transport& transport, const std::string& url);

}  // namespace tputrain::workflow
