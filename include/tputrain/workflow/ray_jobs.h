#pragma once

#include <chrono>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/ray/jobs_client.h"
#include "tputrain/ray/log_follower.h"
#include "tputrain/workflow/kube_access.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/tpu_vm_reach.h"

// `tputrain job VERB`: a Ray head reached at an address, through a RayCluster's API server, or on
// a TPU VM made with tpu-vm create --ray; then one call per verb.
namespace tputrain::workflow {

// Where the head is: --address (else RAY_ADDRESS, else tputrain.yaml's ray_address) with
// --header, --raycluster NAME with the cluster flags, or --tpu-vm NAME (exclusive).
struct RayHeadFlags {
  ray::ConnectionFlags connection;
  RayClusterFlags raycluster;
  TpuVmRayTarget tpu_vm;
};

// One session per command, so the version handshake happens once.
core::Result<std::unique_ptr<RaySession>> ConnectRayHead(Root& root, const RayHeadFlags& flags);

// How to reach this Ray again on a command line, for a re-attach hint: the RayCluster's flags,
// the TPU VM's, or "" (the client's --address).
std::string ReattachFlags(Root& root, const RayHeadFlags& flags);

// `job submit`'s flags as typed (`ray job submit`'s names); Build checks each strictly (CLI11
// would take "nan", "-3" or "1e400") and reads --runtime-env's file, bounded.
struct JobSubmitRequest {
  std::vector<std::string> command;  // after --
  std::string submission_id;
  std::string runtime_env_json;
  std::string runtime_env_file;
  std::string working_dir;
  std::string metadata_json;
  std::optional<std::string> num_cpus;
  std::optional<std::string> num_gpus;
  std::optional<std::string> memory;
  std::string resources_json;

  // Everything but a local working_dir, which the submit zips and uploads; returned in
  // `local_working_dir` (empty when there is none).
  core::Result<ray::SubmitRequest> Build(std::string& local_working_dir) const;
};

// The requests `job submit` would send, as --dry-run shows them: the working_dir upload (its
// size), then the submit body. Nothing is sent.
core::Result<nlohmann::json> SubmitDryRun(const JobSubmitRequest& request);

// A submitted job, on the session that follows it.
struct SubmittedJob {
  std::unique_ptr<RaySession> session;
  std::string id;
  bool reattached = false;  // a resent submit found the job its first attempt made
};
// Connects, uploads the local working_dir (zipped), submits.
core::Result<SubmittedJob> SubmitJob(Root& root, const RayHeadFlags& head, const JobSubmitRequest& request);

// Follows `id` until the job ends, handing each new log piece to `on_text` (the WebSocket tail,
// then polling). On Ctrl-C: on a terminal (Root::Confirm) asks whether to stop the job, and then
// waits for it to stop; otherwise says how to re-attach (`reattach`: flags for the hint, "" for
// --address) and returns kCancelled. Returns the job's final details.
core::Result<ray::JobDetails> FollowJob(Root& root, ray::JobsClient& client, http::WebSocketConnector& websocket,
                                        const std::string& id, const ray::LogTextHandler& on_text,
                                        const std::string& reattach);
// The same on a session, the log written to `log` as it comes.
core::Result<ray::JobDetails> FollowJob(Root& root, RaySession& session, const std::string& id, std::ostream& log,
                                        const std::string& reattach);

// `job status ID`, `job logs ID`, `job delete ID`, `job list`.
core::Result<ray::JobDetails> JobStatus(Root& root, const RayHeadFlags& head, const std::string& id);
core::Result<std::string> JobLogs(Root& root, const RayHeadFlags& head, const std::string& id);
core::Result<bool> DeleteJob(Root& root, const RayHeadFlags& head, const std::string& id);
core::Result<std::vector<ray::JobDetails>> ListJobs(Root& root, const RayHeadFlags& head);
// `job list --format json`: each job as the head answered it.
nlohmann::json ToJson(const std::vector<ray::JobDetails>& jobs);

// `job logs --follow ID`.
core::Result<ray::JobDetails> FollowJobLogs(Root& root, const RayHeadFlags& head, const std::string& id,
                                            std::ostream& log);

// `job wait ID [--timeout T]`: until the job ends (T: core::ParseDuration's grammar, or bare
// seconds; empty: no limit).
core::Result<ray::JobDetails> WaitJob(Root& root, const RayHeadFlags& head, const std::string& id,
                                      const std::string& timeout);

// `job stop ID`: whether it was told to stop (false: it had already ended). Under --dry-run the
// stop is printed, not sent.
core::Result<bool> StopJob(Root& root, const RayHeadFlags& head, const std::string& id);

}  // namespace tputrain::workflow
