#include "tputrain/ray/wait.h"

namespace tputrain::ray {

core::Result<JobDetails> WaitUntilTerminal(JobsClient& client, const std::string& id, const core::PollEnv& env,
                                           std::optional<std::chrono::milliseconds> timeout) {
  core::PollOptions options;
  options.initial_delay = std::chrono::milliseconds(100);
  options.multiplier = 2;
  options.max_delay = std::chrono::milliseconds(2000);
  options.timeout = timeout;
  // The Jobs client already retried what it safely could; what reaches here is an answer.
  options.is_transient = [](const core::Error&) { return false; };
  std::optional<JobDetails> last;
  auto waited = core::PollUntil(
      [&]() -> core::Result<bool> {
        auto job = client.Get(id);
        if (!job) return core::Fail(job.error());
        last = std::move(*job);
        return IsTerminal(last->status);
      },
      options, env);
  if (!waited) {
    core::Error error = waited.error();
    if (error.kind == core::ErrorKind::kDeadlineExceeded && last) {
      error.message = "job '" + id + "' is still " + last->status_text + " after --timeout";
    }
    return core::Fail(error);
  }
  return *last;
}

}  // namespace tputrain::ray
