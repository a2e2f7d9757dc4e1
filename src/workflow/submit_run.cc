#include <deque>

#include "tputrain/workflow/submit.h"

namespace tputrain::workflow {
namespace {

constexpr size_t kTailLines = 25;

// Keeps the job's last lines, to show when the run fails.
class LogTail {
 public:
  void Feed(std::string_view text) {
    while (!text.empty()) {
      size_t newline = text.find('\n');
      partial_.append(text.substr(0, newline));
      if (newline == std::string_view::npos) break;
      lines_.push_back(std::move(partial_));
      partial_.clear();
      if (lines_.size() > kTailLines) lines_.pop_front();
      text.remove_prefix(newline + 1);
    }
  }
  std::vector<std::string> Lines() const {
    std::vector<std::string> lines(lines_.begin(), lines_.end());
    if (!partial_.empty()) lines.push_back(partial_);
    return lines;
  }

 private:
  std::deque<std::string> lines_;
  std::string partial_;
};

}  // namespace

core::Result<SubmitOutcome> SubmitMaxText(ray::JobsClient& client, const MaxTextJob& job, bool wait,
                                          const FollowFunction& follow, const SubmitCallbacks& callbacks) {
  ray::SubmitRequest request = job.request;
  if (!job.local_working_dir.empty()) {
    auto uri = client.UploadWorkingDir(job.local_working_dir);
    if (!uri) return core::Fail(uri.error());
    request.runtime_env["working_dir"] = *uri;
  }
  auto submitted = client.Submit(request);
  if (!submitted) return core::Fail(submitted.error());
  SubmitOutcome outcome;
  outcome.submission_id = submitted->submission_id;
  if (callbacks.on_submitted) callbacks.on_submitted(outcome.submission_id, submitted->reattached);
  if (!wait) return outcome;

  maxtext::ProgressModel progress(job.steps);
  LogTail tail;
  auto followed = follow(client, outcome.submission_id, [&](std::string_view text) {
    if (callbacks.on_log) callbacks.on_log(text);
    tail.Feed(text);
    if (progress.Feed(text) && callbacks.on_progress) callbacks.on_progress(progress.State());
  });
  if (!followed) return core::Fail(followed.error());
  progress.Finish();
  outcome.job = std::move(*followed);
  outcome.summary = maxtext::Summarize(progress.log(), job.facts);
  outcome.log_tail = tail.Lines();
  return outcome;
}

nlohmann::json OutcomeToJson(const MaxTextJob& job, const SubmitOutcome& outcome) {
  nlohmann::json json = {
      {"submission_id", outcome.submission_id},
      {"model", job.model.name},
      {"run_name", job.run_name},
      {"tpu_type", job.slice ? nlohmann::json(job.slice->accelerator_type) : nlohmann::json("cpu")},
  };
  if (job.slice) json["peak_tflops_per_device"] = job.slice->generation->peak_bf16_tflops_per_chip;
  if (outcome.job) {
    json["status"] = outcome.job->status_text;
    json["summary"] = maxtext::SummaryToJson(outcome.summary);
  }
  return json;
}

}  // namespace tputrain::workflow
