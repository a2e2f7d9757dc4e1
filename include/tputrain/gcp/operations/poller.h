#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "tputrain/core/cancel.h"
#include "tputrain/core/clock.h"
#include "tputrain/core/result.h"
#include "tputrain/gcp/container/client.h"
#include "tputrain/gcp/tpu/client.h"

namespace tputrain::gcp::operations {

// Soon at first, then growing, capped: an operation that finishes in a second is seen within a
// second, one that takes ten minutes costs a poll every `max_delay`.
struct PollOptions {
  std::chrono::milliseconds initial_delay{1000};
  double multiplier = 1.5;
  std::chrono::milliseconds max_delay{10000};
  // Stop waiting (not the operation) after this long; nullopt waits for ever.
  std::optional<std::chrono::milliseconds> timeout;
  // Consecutive transient poll failures (UNAVAILABLE, INTERNAL, DEADLINE_EXCEEDED) tolerated.
  int transient_failures = 5;
};

// The delay before poll number `attempt` (0-based) under `options`.
std::chrono::milliseconds PollDelay(const PollOptions& options, int attempt);

struct PollEnv {
  core::Clock& clock;
  core::Sleeper& sleeper;
  const core::CancelToken* cancel = nullptr;
};

// Calls `poll` (true: done) until it is done, fails with a non-transient error, the timeout
// passes (kDeadlineExceeded) or the wait is cancelled (kCancelled). The first poll is immediate.
core::Status PollUntilDone(const std::function<core::Result<bool>()>& poll, const PollOptions& options,
                           const PollEnv& env);

// Called after each poll with the operation as last seen.
using ContainerProgress = std::function<void(const container::Operation&)>;
using TpuProgress = std::function<void(const tpu::Operation&)>;

// Waits for a GKE operation to be DONE. A DONE operation carrying an error (or, as gcloud reads
// it, a statusMessage) becomes an Error with the kind of its rpc code and the server's message.
core::Result<container::Operation> WaitForContainerOperation(container::Client& client,
                                                             const container::LocationRef& location,
                                                             const std::string& name, const PollOptions& options,
                                                             const PollEnv& env,
                                                             const ContainerProgress& progress = nullptr);

// Waits for a Cloud TPU long-running operation to be done; an `error` becomes an Error.
core::Result<tpu::Operation> WaitForTpuOperation(tpu::Client& client, const std::string& name,
                                                 const PollOptions& options, const PollEnv& env,
                                                 const TpuProgress& progress = nullptr);

// The Error an operation's google.rpc.Status stands for.
core::Error ErrorFromRpcStatus(int code, const std::string& message, const std::string& where);

}  // namespace tputrain::gcp::operations
