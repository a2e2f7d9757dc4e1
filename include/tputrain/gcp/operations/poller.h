#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "tputrain/core/cancel.h"
#include "tputrain/core/clock.h"
#include "tputrain/core/poll.h"
#include "tputrain/core/result.h"
#include "tputrain/gcp/container/client.h"
#include "tputrain/gcp/tpu/client.h"

namespace tputrain::gcp::operations {

// The options and environment of core::PollUntil: operations are polled like anything else.
using PollOptions = core::PollOptions;
using PollEnv = core::PollEnv;
using core::PollDelay;

// core::PollUntil, with "(the operation goes on)" said on a timeout unless options say otherwise.
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
