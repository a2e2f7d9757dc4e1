#pragma once

#include <CLI/CLI.hpp>

#include "tputrain/cli/context.h"
#include "tputrain/workflow/queue.h"

// What the queue commands print: a table, or the JSON that is their contract.
namespace tputrain::cli {

void PrintQueueCreated(Context& context, const workflow::QueueCreateOutcome& created);
void PrintQueueDeleted(Context& context, const workflow::QueueDeleteOutcome& deleted);
void PrintQueueList(Context& context, const std::vector<workflow::QueueSummary>& queues);
void PrintQueueDescription(Context& context, const workflow::QueueDescription& description);
void PrintWorkloadReports(Context& context, const std::vector<workflow::WorkloadReport>& reports);

// queue status [WORKLOAD] and queue wait WORKLOAD (queue_status.cc).
void AddQueueStatusCommands(CLI::App& queue, Context& context);

}  // namespace tputrain::cli
