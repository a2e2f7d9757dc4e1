#pragma once

#include <functional>

#include "tputrain/core/poll.h"

namespace tputrain::core {

// What one look saw, for a wait that follows something as it goes: kProgressed is not done yet,
// but something moved (a log grew), so the next pause is initial_delay again.
enum class Seen { kDone, kWaiting, kProgressed };

// PollUntil (the same loop: PollUntil is this with no kProgressed), with the pauses starting
// over after each kProgressed.
Status PollUntilSeen(const std::function<Result<Seen>()>& poll, const PollOptions& options, const PollEnv& env);

}  // namespace tputrain::core
