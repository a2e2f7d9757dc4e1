#pragma once

#include "tputrain/core/poll.h"
#include "tputrain/core/reporter.h"

namespace tputrain::core {

// What the process gives every flow, built once by the composition root (workflow::Root): time and
// sleep and the Ctrl-C token (together the PollEnv a wait needs), and the person to tell. The
// workflow environments derive from it instead of carrying each part again.
struct Runtime : PollEnv {
  Reporter& reporter;
};

}  // namespace tputrain::core
