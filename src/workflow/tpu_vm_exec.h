#pragma once

#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/gcp/tpu/types.h"
#include "tputrain/ray/jobs_client.h"

// `tputrain tpu-vm exec NAME --worker all -- CMD` (the seed's `tpu-vm ssh --worker=all
// --command`) without ssh: a Ray job on the node's own Ray whose driver runs CMD once on each
// chosen host (a task pinned to that host's Ray node) and prints its output prefixed by worker.
namespace tputrain::workflow {

// `--worker`: "all", or worker numbers "0,2" below `hosts`; a usage error otherwise.
core::Result<std::vector<int>> ParseWorkers(const std::string& flag, const std::string& value, int hosts);

// The job: `command` on each of `workers`, whose hosts are at `worker_ips` (the node's
// networkEndpoints, in worker order). Its driver exits 1 when CMD failed anywhere.
core::Result<ray::SubmitRequest> TpuVmExecRequest(const std::vector<std::string>& worker_ips,
                                                  const std::vector<int>& workers,
                                                  const std::vector<std::string>& command);

}  // namespace tputrain::workflow
