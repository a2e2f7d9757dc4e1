#include <array>
#include <charconv>

#include "tputrain/ray/jobs_client.h"

namespace tputrain::ray {
namespace {

constexpr std::array<std::pair<JobStatus, std::string_view>, 5> kStatusNames{{
    {JobStatus::kPending, "PENDING"},
    {JobStatus::kRunning, "RUNNING"},
    {JobStatus::kStopped, "STOPPED"},
    {JobStatus::kSucceeded, "SUCCEEDED"},
    {JobStatus::kFailed, "FAILED"},
}};

std::optional<std::string> OptionalString(const nlohmann::json& json, const char* key) {
  auto it = json.find(key);
  if (it == json.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::optional<int64_t> OptionalInt(const nlohmann::json& json, const char* key) {
  auto it = json.find(key);
  if (it == json.end() || !it->is_number()) return std::nullopt;
  return it->get<int64_t>();
}

}  // namespace

std::string_view JobStatusName(JobStatus status) {
  for (const auto& [value, name] : kStatusNames) {
    if (value == status) return name;
  }
  return "UNKNOWN";
}

JobStatus ParseJobStatus(std::string_view name) {
  for (const auto& [value, text] : kStatusNames) {
    if (text == name) return value;
  }
  return JobStatus::kUnknown;
}

bool IsTerminal(JobStatus status) {
  return status == JobStatus::kStopped || status == JobStatus::kSucceeded || status == JobStatus::kFailed;
}

int ExitCodeForJob(JobStatus status) {
  switch (status) {
    case JobStatus::kSucceeded:
      return core::kExitOk;
    case JobStatus::kStopped:
      return kExitJobStopped;
    default:
      return core::kExitFailed;
  }
}

std::string JobDetails::id() const {
  if (submission_id && !submission_id->empty()) return *submission_id;
  return job_id.value_or("");
}

core::Result<JobDetails> ParseJobDetails(const nlohmann::json& json) {
  if (!json.is_object()) {
    return core::Fail(core::Error::Make(core::ErrorKind::kInternal, "Ray returned a job that is not a JSON object"));
  }
  JobDetails job;
  job.raw = json;
  job.type = OptionalString(json, "type").value_or("SUBMISSION");
  job.job_id = OptionalString(json, "job_id");
  job.submission_id = OptionalString(json, "submission_id");
  job.status_text = OptionalString(json, "status").value_or("");
  job.status = ParseJobStatus(job.status_text);
  job.entrypoint = OptionalString(json, "entrypoint").value_or("");
  job.message = OptionalString(json, "message");
  job.error_type = OptionalString(json, "error_type");
  job.start_time_ms = OptionalInt(json, "start_time");
  job.end_time_ms = OptionalInt(json, "end_time");
  if (auto it = json.find("metadata"); it != json.end() && it->is_object()) {
    for (const auto& [key, value] : it->items()) {
      job.metadata[key] = value.is_string() ? value.get<std::string>() : value.dump();
    }
  }
  if (auto it = json.find("runtime_env"); it != json.end()) job.runtime_env = *it;
  job.driver_agent_http_address = OptionalString(json, "driver_agent_http_address");
  job.driver_node_id = OptionalString(json, "driver_node_id");
  if (auto code = OptionalInt(json, "driver_exit_code")) job.driver_exit_code = static_cast<int>(*code);
  if (auto it = json.find("driver_info"); it != json.end() && it->is_object()) {
    DriverInfo info;
    info.id = OptionalString(*it, "id").value_or("");
    info.node_ip_address = OptionalString(*it, "node_ip_address").value_or("");
    // Ray sends the pid as a string; tolerate a number too.
    if (auto pid = it->find("pid"); pid != it->end())
      info.pid = pid->is_string() ? pid->get<std::string>() : pid->dump();
    job.driver_info = info;
  }
  return job;
}

bool ServerVersion::RayAtLeast(int major, int minor) const {
  int have_major = 0;
  int have_minor = 0;
  const char* begin = ray_version.data();
  const char* end = begin + ray_version.size();
  auto first = std::from_chars(begin, end, have_major);
  if (first.ec != std::errc() || first.ptr == end || *first.ptr != '.') return true;
  if (std::from_chars(first.ptr + 1, end, have_minor).ec != std::errc()) return true;
  return have_major > major || (have_major == major && have_minor >= minor);
}

}  // namespace tputrain::ray
