#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/clock.h"
#include "tputrain/core/env.h"
#include "tputrain/core/redact.h"
#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"

// A client for the Ray dashboard's Jobs REST API (the head's port 8265), speaking it directly so
// that no Python or Ray is needed on the user's machine.
namespace tputrain::ray {

enum class JobStatus { kPending, kRunning, kStopped, kSucceeded, kFailed, kUnknown };

std::string_view JobStatusName(JobStatus status);  // "PENDING", ... as Ray spells them
JobStatus ParseJobStatus(std::string_view name);   // unknown text → kUnknown
bool IsTerminal(JobStatus status);                 // STOPPED, SUCCEEDED, FAILED

// tputrain's exit code for a finished job: 0 SUCCEEDED, 1 FAILED, 3 STOPPED (the Ray CLI
// returns 0 for a stopped job; tputrain does not, so that CI chains stop on it).
inline constexpr int kExitJobStopped = 3;
int ExitCodeForJob(JobStatus status);

struct DriverInfo {
  std::string id;
  std::string node_ip_address;
  std::string pid;  // Ray sends it as a string
};

// One job as GET /api/jobs/{id} describes it. Parsed leniently: unknown keys are ignored and
// kept in `raw`, which is also what `--format json` prints.
struct JobDetails {
  std::string type;  // "SUBMISSION" or "DRIVER"
  std::optional<std::string> job_id;
  std::optional<std::string> submission_id;
  JobStatus status = JobStatus::kUnknown;
  std::string status_text;
  std::string entrypoint;
  std::optional<std::string> message;
  std::optional<std::string> error_type;
  std::optional<int64_t> start_time_ms;
  std::optional<int64_t> end_time_ms;
  std::map<std::string, std::string> metadata;
  nlohmann::json runtime_env;  // null when absent
  std::optional<std::string> driver_agent_http_address;
  std::optional<std::string> driver_node_id;
  std::optional<int> driver_exit_code;
  std::optional<DriverInfo> driver_info;
  nlohmann::json raw;

  // The submission id, else the Ray job id: the id to use in follow-up commands.
  std::string id() const;
};

core::Result<JobDetails> ParseJobDetails(const nlohmann::json& json);

// GET /api/version. `api_version` gates endpoints (≥ 3 entrypoint resources, ≥ 4 DELETE);
// `ray_version` gates request fields.
struct ServerVersion {
  int api_version = 0;
  std::string ray_version;  // "2.60.0"
  std::string ray_commit;
  std::string session_name;

  // Compares ray_version's major.minor; an unparsable version counts as new.
  bool RayAtLeast(int major, int minor) const;
};

// POST /api/jobs/. Unset fields are never sent, and fields the server's Ray version does not
// know are refused locally (a Ray head answers 400 to any key it does not know).
struct SubmitRequest {
  std::string entrypoint;                                 // run through a shell, as `ray job submit`
  std::string submission_id;                              // empty: generated ("raysubmit_" + 16 chars)
  nlohmann::json runtime_env = nlohmann::json::object();  // working_dir must be a remote URI
  std::map<std::string, std::string> metadata;
  std::optional<double> entrypoint_num_cpus;
  std::optional<double> entrypoint_num_gpus;
  std::optional<int64_t> entrypoint_memory;  // bytes; Ray ≥ 2.8
  std::map<std::string, double> entrypoint_resources;
  std::map<std::string, std::string> entrypoint_label_selector;  // Ray ≥ 2.54
};

struct SubmitResult {
  std::string submission_id;
  // True when tputrain's own retry found the job its first, unanswered attempt had created.
  bool reattached = false;
};

struct ClientOptions {
  std::string address;  // http(s)://host:port[/prefix], no trailing slash (NormalizeAddress)
  // Sent on every request, the WebSocket upgrade included: --header, RAY_JOB_HEADERS, and
  // "X-Ray-Authorization: Bearer <token>" for token-auth clusters.
  http::Headers headers;
  // "No available agent" right after `ray start`, and unanswered submits, are retried.
  int max_attempts = 8;
  // Idempotent requests and submits that got no reply at all (connection refused or reset):
  // few, so that a wrong --address fails in well under a second.
  int max_unanswered_attempts = 3;
  std::chrono::milliseconds initial_backoff{250};
  std::chrono::milliseconds max_backoff{4000};
  // Makes submission ids; empty: random. Tests pin it.
  std::function<std::string()> make_submission_id;
};

class JobsClient {
 public:
  JobsClient(http::Transport& transport, core::Sleeper& sleeper, ClientOptions options);

  // GET /api/version, once per client (callers share one client per process).
  core::Result<ServerVersion> Version();

  core::Result<SubmitResult> Submit(const SubmitRequest& request);
  core::Result<JobDetails> Get(const std::string& id);
  core::Result<std::vector<JobDetails>> List();
  core::Result<std::string> Logs(const std::string& id);  // the whole driver log so far
  core::Result<bool> Stop(const std::string& id);         // false: already terminal
  core::Result<bool> Delete(const std::string& id);       // terminal jobs only

  // Zips `dir` (stored, content-addressed), uploads it unless the head already has it, and
  // returns the gcs:// URI to put in runtime_env.working_dir.
  core::Result<std::string> UploadWorkingDir(const std::string& dir);

  // ws(s)://…/api/jobs/{id}/logs/tail
  std::string LogTailUrl(const std::string& id) const;
  const ClientOptions& options() const { return options_; }
  http::Transport& transport() { return transport_; }

 private:
  core::Result<http::Response> Call(http::Request request, std::string_view where);
  http::Request Make(std::string method, std::string path) const;

  http::Transport& transport_;
  core::Sleeper& sleeper_;
  ClientOptions options_;
  std::optional<ServerVersion> version_;
};

// A directory zipped as UploadWorkingDir sends it, and the package name it goes by
// ("_ray_pkg_<sha1 of the zip>.zip"), for --dry-run and for tests.
struct WorkingDirPackage {
  std::string name;
  std::string archive;
  std::string uri() const { return "gcs://" + name; }
};
core::Result<WorkingDirPackage> PackageWorkingDir(const std::string& dir);

// The request body exactly as it is sent, after checking fields against the server's version.
core::Result<nlohmann::json> SubmitBody(const SubmitRequest& request, const ServerVersion& version);

// Accepts http(s) URLs and bare host:port (as the Ray CLI: http:// is assumed); strips trailing
// slashes. ray:// and other schemes are refused with a usage error.
core::Result<std::string> NormalizeAddress(std::string_view address);

// Connection settings as the Ray CLI reads them: `address` (flag) else RAY_ADDRESS else
// `configured` (tputrain.yaml); `--header K:V` values, else RAY_JOB_HEADERS (a JSON object);
// a Ray token from RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH, or ~/.ray/auth_token when
// RAY_AUTH_MODE=token, sent as X-Ray-Authorization so it survives proxies. The token, and the
// value of any credential header (Authorization, X-Ray-Authorization, Cookie), is handed to
// `secrets` as soon as it is read.
struct ConnectionFlags {
  std::string address;
  std::vector<std::string> headers;  // "Name: value"
};
core::Result<ClientOptions> ResolveClientOptions(const ConnectionFlags& flags, const core::Env& env,
                                                 const std::optional<std::string>& configured_address,
                                                 core::Redactor* secrets = nullptr);

// An HTTP error reply from the dashboard as an Error: the text/plain body reduced to one line
// (a traceback's last line), duplicate ids as kAlreadyExists, unknown ids as kNotFound.
core::Error ErrorFromRay(const http::Response& response, std::string_view where);

}  // namespace tputrain::ray
