#include "output/job_output.h"

#include <algorithm>
#include <ctime>

#include "output/output.h"

namespace tputrain::cli {

std::string FormatTime(const std::optional<int64_t>& ms) {
  if (!ms) return "";
  std::time_t seconds = static_cast<std::time_t>(*ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// Ray appends the log's last 20,000 characters to a failed job's message; they were printed
// already, so people get the first sentence.
std::string FirstLine(const std::optional<std::string>& text) {
  if (!text) return "";
  std::string line = text->substr(0, text->find('\n'));
  return line.substr(0, line.find(", last available logs"));
}

std::string OneLine(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

void PrintJob(Context& context, const ray::JobDetails& job) {
  PrintResult(context, job.raw, [&](std::ostream& out) {
    std::vector<std::vector<std::string>> rows = {
        {"submission_id", job.submission_id.value_or("")},
        {"job_id", job.job_id.value_or("")},
        {"status", job.status_text},
        {"message", FirstLine(job.message)},
        {"entrypoint", job.entrypoint},
        {"start_time", FormatTime(job.start_time_ms)},
        {"end_time", FormatTime(job.end_time_ms)},
        {"driver_exit_code", job.driver_exit_code ? std::to_string(*job.driver_exit_code) : ""},
    };
    if (job.error_type) rows.push_back({"error_type", *job.error_type});
    PrintTable(out, {"field", "value"}, rows);
  });
}

// The last word after following: the status on stderr, the details on stdout for --format
// json/yaml, and the exit code that mirrors the job.
int Finish(Context& context, const ray::JobDetails& job) {
  SayOnStderr(context,
              "Job '" + job.id() + "' " + job.status_text + (job.message ? ": " + FirstLine(job.message) : ""));
  if (context.global.output_format() != OutputFormat::kTable) PrintResult(context, job.raw, [](std::ostream&) {});
  return ray::ExitCodeForJob(job.status);
}

// Log text goes to stdout, unless stdout is reserved for the JSON/YAML result.
std::ostream& LogStream(Context& context) {
  return context.global.output_format() == OutputFormat::kTable ? context.out : context.err;
}

}  // namespace tputrain::cli
