#include "tputrain/ray/jobs_client.h"

#include <algorithm>
#include <random>

#include "tputrain/core/json.h"
#include "tputrain/core/json_fields.h"

namespace tputrain::ray {
namespace {

std::string RandomSubmissionId() {
  static constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device random;
  std::string id = "raysubmit_";
  for (int i = 0; i < 16; ++i) id += kAlphabet[random() % kAlphabet.size()];
  return id;
}

core::Error Unparsable(std::string_view where, std::string_view what) {
  auto error =
      core::Error::Make(core::ErrorKind::kInternal, "unexpected reply from the Ray dashboard: " + std::string(what));
  error.where = std::string(where);
  return error;
}

// A job's whole log, as the polling fallback reads it each time: the one answer that may be large.
constexpr size_t kMaxLogReplyBytes = 256 * core::kMiB;

core::Result<nlohmann::json> ParseBody(const http::Response& response, std::string_view where,
                                       size_t max_bytes = core::JsonLimits{}.max_bytes) {
  auto json = core::ParseJson(response.body, "", {.max_bytes = max_bytes});
  if (!json) return core::Fail(Unparsable(where, json.error().message));
  return json;
}

bool IsAgentNotReady(const http::Response& response) {
  return response.status == 500 && response.body.find("No available agent") != std::string::npos;
}

core::Status NeedsRay(const ServerVersion& version, bool present, int major, int minor, std::string_view field) {
  if (!present || version.RayAtLeast(major, minor)) return {};
  return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                      std::string(field) + " needs Ray " + std::to_string(major) + "." +
                                          std::to_string(minor) + " or newer on the head, which runs Ray " +
                                          version.ray_version + "; it was not sent"));
}

}  // namespace

core::Result<nlohmann::json> SubmitBody(const SubmitRequest& request, const ServerVersion& version) {
  if (request.entrypoint.empty()) return core::Fail(core::Error::Usage("the job needs an entrypoint (-- CMD ARGS...)"));
  bool resources = request.entrypoint_num_cpus || request.entrypoint_num_gpus || !request.entrypoint_resources.empty();
  for (auto status :
       {NeedsRay(version, resources, 2, 2, "--entrypoint-num-cpus/gpus/resources"),
        NeedsRay(version, request.entrypoint_memory.has_value(), 2, 8, "--entrypoint-memory"),
        NeedsRay(version, !request.entrypoint_label_selector.empty(), 2, 54, "entrypoint_label_selector")}) {
    if (!status) return core::Fail(status.error());
  }
  if (!request.runtime_env.is_object()) return core::Fail(core::Error::Usage("runtime_env must be a JSON object"));
  nlohmann::json body = {
      {"entrypoint", request.entrypoint}, {"runtime_env", request.runtime_env}, {"metadata", request.metadata}};
  // API version 2 renamed job_id to submission_id; older heads know only job_id.
  if (!request.submission_id.empty())
    body[version.api_version >= 2 ? "submission_id" : "job_id"] = request.submission_id;
  if (request.entrypoint_num_cpus) body["entrypoint_num_cpus"] = *request.entrypoint_num_cpus;
  if (request.entrypoint_num_gpus) body["entrypoint_num_gpus"] = *request.entrypoint_num_gpus;
  if (request.entrypoint_memory) body["entrypoint_memory"] = *request.entrypoint_memory;
  if (!request.entrypoint_resources.empty()) body["entrypoint_resources"] = request.entrypoint_resources;
  if (!request.entrypoint_label_selector.empty()) body["entrypoint_label_selector"] = request.entrypoint_label_selector;
  return body;
}

JobsClient::JobsClient(http::Transport& transport, core::Sleeper& sleeper, ClientOptions options)
    : transport_(transport), sleeper_(sleeper), options_(std::move(options)) {
  if (!options_.make_submission_id) options_.make_submission_id = RandomSubmissionId;
}

http::Request JobsClient::Make(std::string method, std::string path) const {
  http::Request request;
  request.method = std::move(method);
  request.url = options_.address + path;
  request.headers = options_.headers;
  request.idempotent = request.method == "GET";
  return request;
}

// Retries what is safe to retry: any request while the head's agent is not ready yet (it
// refused before acting), and transport failures of idempotent requests. A submit is made safe
// by its fixed submission id, see Submit.
core::Result<http::Response> JobsClient::Call(http::Request request, std::string_view where) {
  auto backoff = options_.initial_backoff;
  for (int attempt = 1;; ++attempt) {
    auto response = transport_.Send(request);
    bool retry = response ? IsAgentNotReady(*response) && attempt < options_.max_attempts
                          : request.idempotent && attempt < options_.max_unanswered_attempts;
    if (!retry) {
      if (!response) {
        auto error = response.error();
        error.where = std::string(where);
        return core::Fail(error);
      }
      return response;
    }
    if (!sleeper_.Sleep(backoff)) return core::Fail(core::Error::Cancelled());
    backoff = std::min(backoff * 2, options_.max_backoff);
  }
}

core::Result<ServerVersion> JobsClient::Version() {
  if (version_) return *version_;
  auto response = Call(Make("GET", "/api/version"), "ray.version");
  if (!response) return core::Fail(response.error());
  if (response->status == 404) {
    return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                        options_.address + " has no Ray Jobs API (GET /api/version: 404); "
                                                           "is this a Ray dashboard of Ray 1.9 or newer?"));
  }
  if (!response->ok()) return core::Fail(ErrorFromRay(*response, "ray.version"));
  auto json = ParseBody(*response, "ray.version");
  if (!json) return core::Fail(json.error());
  ServerVersion version;
  auto api = json->is_object() ? json->value("version", nlohmann::json()) : nlohmann::json();
  if (api.is_string()) {
    version.api_version = std::atoi(api.get<std::string>().c_str());
  } else if (api.is_number_integer()) {
    version.api_version = api.get<int>();
  }
  version.ray_version = core::StringAt(*json, "ray_version");
  version.ray_commit = core::StringAt(*json, "ray_commit");
  version.session_name = core::StringAt(*json, "session_name");
  version_ = version;
  return version;
}

core::Result<SubmitResult> JobsClient::Submit(const SubmitRequest& submit) {
  auto version = Version();
  if (!version) return core::Fail(version.error());
  SubmitRequest request = submit;
  // A fixed id makes the POST safe to repeat: a repeat that finds it taken found our own job.
  if (request.submission_id.empty()) request.submission_id = options_.make_submission_id();
  auto body = SubmitBody(request, *version);
  if (!body) return core::Fail(body.error());
  http::Request post = Make("POST", "/api/jobs/");
  post.body = body->dump();
  post.headers.emplace_back("Content-Type", "application/json");
  bool unanswered = false;
  auto backoff = options_.initial_backoff;
  for (int attempt = 1;; ++attempt) {
    auto response = transport_.Send(post);
    if (response && response->ok()) {
      auto json = ParseBody(*response, "ray.jobs.submit");
      if (!json) return core::Fail(json.error());
      // The id sent names the job unless the head says otherwise (an old head choosing its own).
      std::string id = core::StringAt(*json, "submission_id");
      if (id.empty()) id = core::StringAt(*json, "job_id");
      return SubmitResult{id.empty() ? request.submission_id : id, false};
    }
    if (response) {
      auto error = ErrorFromRay(*response, "ray.jobs.submit");
      if (error.kind == core::ErrorKind::kAlreadyExists && unanswered) return SubmitResult{request.submission_id, true};
      if (!IsAgentNotReady(*response) || attempt >= options_.max_attempts) return core::Fail(error);
    } else {
      unanswered = true;
      if (attempt >= options_.max_unanswered_attempts) {
        auto error = response.error();
        error.where = "ray.jobs.submit";
        return core::Fail(error);
      }
    }
    if (!sleeper_.Sleep(backoff)) return core::Fail(core::Error::Cancelled());
    backoff = std::min(backoff * 2, options_.max_backoff);
  }
}

core::Result<JobDetails> JobsClient::Get(const std::string& id) {
  auto response = Call(Make("GET", "/api/jobs/" + http::PathSegment(id)), "ray.jobs.get");
  if (!response) return core::Fail(response.error());
  if (!response->ok()) return core::Fail(ErrorFromRay(*response, "ray.jobs.get"));
  auto json = ParseBody(*response, "ray.jobs.get");
  if (!json) return core::Fail(json.error());
  return ParseJobDetails(*json);
}

core::Result<std::vector<JobDetails>> JobsClient::List() {
  auto response = Call(Make("GET", "/api/jobs/"), "ray.jobs.list");
  if (!response) return core::Fail(response.error());
  if (!response->ok()) return core::Fail(ErrorFromRay(*response, "ray.jobs.list"));
  auto json = ParseBody(*response, "ray.jobs.list");
  if (!json) return core::Fail(json.error());
  std::vector<JobDetails> jobs;
  // API version 1 answered an object keyed by job id; later ones an array.
  if (!json->is_array() && !json->is_object()) return core::Fail(Unparsable("ray.jobs.list", "not a list"));
  for (const auto& item : *json) {
    auto job = ParseJobDetails(item);
    if (!job) return core::Fail(job.error());
    jobs.push_back(std::move(*job));
  }
  return jobs;
}

core::Result<std::string> JobsClient::Logs(const std::string& id) {
  auto request = Make("GET", "/api/jobs/" + http::PathSegment(id) + "/logs");
  request.max_response_bytes = kMaxLogReplyBytes;
  auto response = Call(std::move(request), "ray.jobs.logs");
  if (!response) return core::Fail(response.error());
  if (!response->ok()) return core::Fail(ErrorFromRay(*response, "ray.jobs.logs"));
  auto json = ParseBody(*response, "ray.jobs.logs", kMaxLogReplyBytes);
  if (!json) return core::Fail(json.error());
  auto logs = json->find("logs");
  if (logs == json->end() || !logs->is_string()) return core::Fail(Unparsable("ray.jobs.logs", "no 'logs' text"));
  return logs->get<std::string>();
}

core::Result<bool> JobsClient::Stop(const std::string& id) {
  auto response = Call(Make("POST", "/api/jobs/" + http::PathSegment(id) + "/stop"), "ray.jobs.stop");
  if (!response) return core::Fail(response.error());
  if (!response->ok()) return core::Fail(ErrorFromRay(*response, "ray.jobs.stop"));
  auto json = ParseBody(*response, "ray.jobs.stop");
  if (!json) return core::Fail(json.error());
  return core::BoolAt(*json, "stopped", false);
}

core::Result<bool> JobsClient::Delete(const std::string& id) {
  auto version = Version();
  if (!version) return core::Fail(version.error());
  if (version->api_version < 4) {
    return core::Fail(core::Error::Make(
        core::ErrorKind::kFailedPrecondition,
        "deleting jobs needs Jobs API version 4 (Ray 2.x); the head has " + std::to_string(version->api_version)));
  }
  auto response = Call(Make("DELETE", "/api/jobs/" + http::PathSegment(id)), "ray.jobs.delete");
  if (!response) return core::Fail(response.error());
  if (!response->ok()) return core::Fail(ErrorFromRay(*response, "ray.jobs.delete"));
  auto json = ParseBody(*response, "ray.jobs.delete");
  if (!json) return core::Fail(json.error());
  return core::BoolAt(*json, "deleted", false);
}

std::string JobsClient::LogTailUrl(const std::string& id) const {
  std::string base = options_.address;
  if (base.starts_with("https://")) {
    base = "wss://" + base.substr(8);
  } else if (base.starts_with("http://")) {
    base = "ws://" + base.substr(7);
  }
  return base + "/api/jobs/" + http::PathSegment(id) + "/logs/tail";
}

}  // namespace tputrain::ray
