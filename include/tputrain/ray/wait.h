#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "tputrain/core/clock.h"
#include "tputrain/core/poll.h"
#include "tputrain/ray/jobs_client.h"

namespace tputrain::ray {

// Polls job `id` (soon at first, then every 2 s at most) until it is terminal, and returns its
// final details: `job wait`, and `job stop` waiting for the stop to land. `timeout` empty waits
// for ever; past it, kDeadlineExceeded says which state the job is still in.
core::Result<JobDetails> WaitUntilTerminal(JobsClient& client, const std::string& id, const core::PollEnv& env,
                                           std::optional<std::chrono::milliseconds> timeout = std::nullopt);

}  // namespace tputrain::ray
