// tputrain serve convert: seed 002's checkpoint-converter Job, applied and followed for the hours
// it runs. Following is separate from the Job: it can be stopped (Ctrl-C), dropped by the
// network, and started again by running the same command, which applies unchanged.
#include "tputrain/workflow/serve_convert.h"

#include <algorithm>
#include <optional>

#include "template_values.h"
#include "tputrain/core/json_fields.h"
#include "tputrain/core/poll_seen.h"
#include "tputrain/k8s/pod_logs.h"
#include "tputrain/k8s/readiness.h"
#include "tputrain/render/render.h"
#include "tputrain/workflow/logs.h"
#include "tputrain/workflow/serve.h"

namespace tputrain::workflow {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

constexpr std::size_t kFailureLines = 10;

std::string ArgValue(const json& args, const std::string& flag) {
  if (!args.is_array()) return "";
  for (const auto& arg : args) {
    if (!arg.is_string()) continue;
    const std::string text = arg.get<std::string>();
    if (text.rfind(flag + "=", 0) == 0) return text.substr(flag.size() + 1);
  }
  return "";
}

struct Rendered {
  std::vector<k8s::Object> objects;
  k8s::Object job;
};

core::Result<Rendered> RenderConverter(const ServeConvertRequest& request) {
  std::string bucket;
  if (auto found = request.configuration.find("BUCKET"); found != request.configuration.end()) bucket = found->second;
  for (const auto& set : request.sets) {
    if (set.rfind("BUCKET=", 0) == 0) bucket = set.substr(7);
  }
  auto model_sets = ConverterSetsFor(request.model, bucket);
  if (!model_sets) return core::Fail(model_sets.error());
  render::RenderRequest render_request;
  render_request.template_name = kConverterTemplate;
  render_request.template_dirs = request.template_dirs;
  render_request.configuration = request.configuration;
  render_request.slice_values = SliceTemplateValues;
  render_request.sets = *model_sets;
  render_request.sets.insert(render_request.sets.end(), request.sets.begin(), request.sets.end());
  auto files = render::RenderTemplate(render_request);
  if (!files) return core::Fail(files.error());
  Rendered rendered;
  bool found_job = false;
  for (const auto& file : files->files) {
    if (!file.yaml) continue;
    auto objects = k8s::ParseManifests(file.text, std::string(kConverterTemplate) + "/" + file.name);
    if (!objects) return core::Fail(objects.error());
    for (auto& object : *objects) {
      if (object.kind == "Job" && !found_job) {
        rendered.job = object;
        found_job = true;
      }
      rendered.objects.push_back(std::move(object));
    }
  }
  if (!found_job) return core::Fail(core::Error::Internal("template checkpoint-converter has no Job"));
  return rendered;
}

// The Job's newest pod (a Job with backoffLimit 0 has one; a retried one, the latest), or null.
core::Result<json> NewestPod(k8s::Client& client, const std::string& ns, const std::string& job) {
  for (const auto& selector : PodSelectors({LogTarget::Kind::kJob, job})) {
    auto list = client.GetJson(
        "/api/v1/namespaces/" + http::PathSegment(ns) + "/pods?labelSelector=" + http::UrlEncode(selector), "pods");
    if (!list) return core::Fail(list.error());
    const auto items = core::ArrayAt(*list, "items");
    if (items.empty()) continue;
    return *std::max_element(items.begin(), items.end(), [](const json& a, const json& b) {
      const auto am = core::ObjectAt(a, "metadata");
      const auto bm = core::ObjectAt(b, "metadata");
      return std::make_pair(core::StringAt(am, "creationTimestamp"), core::StringAt(am, "name")) <
             std::make_pair(core::StringAt(bm, "creationTimestamp"), core::StringAt(bm, "name"));
    });
  }
  return json();
}

// A kubelet timestamp (RFC 3339, nanoseconds with trailing zeros dropped) in a form that sorts
// by time: the fraction padded to nine digits. Empty when `stamp` is not one.
std::string SortableStamp(std::string_view stamp) {
  if (stamp.size() < 20 || stamp.back() != 'Z' || stamp[10] != 'T') return "";
  std::string seconds(stamp.substr(0, 19));
  std::string fraction;
  if (stamp[19] == '.') fraction = std::string(stamp.substr(20, stamp.size() - 21));
  if (fraction.size() > 9) return "";
  fraction.append(9 - fraction.size(), '0');
  return seconds + "." + fraction;
}

bool Finished(const json& pod) {
  const std::string phase = core::StringAt(core::ObjectAt(pod, "status"), "phase");
  return phase == "Succeeded" || phase == "Failed";
}

// How a pod that has no log yet stands, for the progress line: its phase and, while it is not
// scheduled, the scheduler's reason (no m1-ultramem-160 node yet is the usual one).
std::string PodState(const json& pod) {
  const auto status = core::ObjectAt(pod, "status");
  std::string state = core::StringAt(status, "phase").empty() ? "Pending" : core::StringAt(status, "phase");
  for (const auto& condition : core::ArrayAt(status, "conditions")) {
    if (core::StringAt(condition, "type") == "PodScheduled" && core::StringAt(condition, "status") == "False") {
      state += ": " + core::StringAt(condition, "reason");
      if (!core::StringAt(condition, "message").empty()) state += ": " + core::StringAt(condition, "message");
    }
  }
  for (const auto& container : core::ArrayAt(status, "containerStatuses")) {
    const std::string reason = core::StringAt(core::ObjectAt(core::ObjectAt(container, "state"), "waiting"), "reason");
    if (!reason.empty()) state += ", " + reason;
  }
  return state;
}

class Follower {
 public:
  Follower(ServeConvertEnv& env, const ServeConvertOutcome& outcome, int first_tail)
      : env_(env), outcome_(outcome), first_tail_(first_tail), last_(kFailureLines) {}

  // Until the Job is Complete (true) or Failed (an error with its last lines), on the one poll:
  // a look at once, then every 1 s growing to 15 s, and 1 s again once the log moved. A read that
  // fails is tried again (the sixth in a row ends the wait); what the Job or its pod says ends it.
  core::Status Run() {
    k8s::Client& client = env_.apply.client;
    const std::string task = "convert " + outcome_.job;
    const std::string job_path =
        "/apis/batch/v1/namespaces/" + http::PathSegment(outcome_.ns) + "/jobs/" + http::PathSegment(outcome_.job);
    core::PollOptions pacing;
    pacing.initial_delay = std::chrono::seconds(1);
    pacing.max_delay = std::chrono::seconds(15);
    pacing.transient_failures = 5;
    bool final = false;  // set by the look that returns an answer rather than a failed read
    pacing.is_transient = [&final](const core::Error&) { return !final; };
    auto done = core::PollUntilSeen(
        [&]() -> core::Result<core::Seen> {
          final = false;
          core::Seen seen = core::Seen::kWaiting;
          std::optional<core::Error> failed_read;
          auto pod = NewestPod(client, outcome_.ns, outcome_.job);
          if (!pod) {
            failed_read = pod.error();
          } else if (!pod->is_null()) {
            auto streamed = Follow(*pod, task);
            if (!streamed) {
              final = true;
              return core::Fail(streamed.error());
            }
            if (*streamed) seen = core::Seen::kProgressed;
          }
          auto job = client.GetJson(job_path, "job/" + outcome_.job);
          if (!job) {
            if (job.error().kind != core::ErrorKind::kNotFound) return core::Fail(job.error());
            final = true;
            return core::Fail(core::Error::Make(core::ErrorKind::kNotFound,
                                                "job/" + outcome_.job + " was deleted while it was followed"));
          }
          const JobState state = JobStateOf(*job);
          if (state.phase == JobState::Phase::kComplete) return core::Seen::kDone;
          if (state.phase == JobState::Phase::kFailed) {
            final = true;
            return core::Fail(FailedError(state));
          }
          if (failed_read) return core::Fail(*failed_read);
          return seen;
        },
        pacing, env_);
    if (!done) {
      if (done.error().kind == core::ErrorKind::kCancelled) return core::Fail(core::Error::Cancelled());
      return core::Fail(done.error());
    }
    env_.reporter.Done(task, "complete");
    return {};
  }

 private:
  // A state said once, not at every look: the Job may wait hours.
  void Say(const std::string& task, const std::string& state) {
    if (state == said_) return;
    said_ = state;
    env_.reporter.Progress(task, state);
  }

  bool Interrupted() const { return env_.cancel != nullptr && env_.cancel->cancelled(); }

  // Follows `pod`'s log once if there is one to follow: true when lines came. A pod that cannot
  // start is an error; one not started yet, or a dropped stream, is reported and tried again.
  core::Result<bool> Follow(const json& pod, const std::string& task) {
    const std::string name = core::StringAt(core::ObjectAt(pod, "metadata"), "name");
    if (name == done_pod_) return false;
    if (auto problem = PodProblem(pod)) {
      return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                          *problem + " (job/" + outcome_.job + " stays; fix it and run again)"));
    }
    if (name != pod_) {  // a new pod (the first, or a retry): its log from the start
      pod_ = name;
      resume_ = std::nullopt;
      last_stamp_.clear();
      same_stamp_ = 0;
    }
    const bool finished = Finished(pod);
    LogsRequest request;
    request.target = {LogTarget::Kind::kPod, name};
    request.ns = outcome_.ns;
    request.prefix = false;
    request.log.follow = !finished;
    // Timestamps say where a stream stopped; they are taken off before the lines are shown.
    request.log.timestamps = true;
    if (resume_) {
      // Again after the stream ended: what came since, with a margin (sinceSeconds is whole);
      // the lines already shown are recognised by their timestamps and dropped.
      const auto gone = std::chrono::duration_cast<std::chrono::seconds>(env_.clock.WallNow() - *resume_);
      request.log.since_seconds = std::max<int64_t>(gone.count(), 0) + 2;
    } else if (first_tail_ > 0) {
      request.log.tail_lines = first_tail_;
    }
    bool any = false;
    // Lines can share a timestamp: those shown already are skipped by count.
    const std::string skip_stamp = last_stamp_;
    int skip_count = same_stamp_;
    LogsSinks sinks;
    sinks.out = [&](std::string_view lines) {
      std::string shown;
      while (!lines.empty()) {
        const auto end = lines.find('\n');
        std::string_view line = lines.substr(0, end == std::string_view::npos ? lines.size() : end + 1);
        lines.remove_prefix(line.size());
        const auto space = line.find(' ');
        const std::string stamp = space == std::string_view::npos ? "" : SortableStamp(line.substr(0, space));
        if (!stamp.empty()) {
          // Shown before: older than the last line shown, or as old and among those shown.
          if (stamp < skip_stamp) continue;
          if (stamp == skip_stamp && skip_count > 0) {
            --skip_count;
            continue;
          }
          same_stamp_ = stamp == last_stamp_ ? same_stamp_ + 1 : 1;
          last_stamp_ = stamp;
          line.remove_prefix(space + 1);
        }
        shown.append(line);
      }
      if (shown.empty()) return;
      any = true;
      last_.Add(shown);
      if (env_.on_log) env_.on_log(shown);
    };
    sinks.notice = [&](std::string_view line) { env_.reporter.Warn(line); };
    Say(task, "following pod " + name);
    auto status = StreamLogs(env_.apply.client, request, sinks, env_.cancel);
    if (Interrupted()) return core::Fail(core::Error::Cancelled());
    if (!status) {
      const core::Error& error = status.error();
      const bool waiting = k8s::IsWaitingToStart(error) || error.kind == core::ErrorKind::kFailedPrecondition;
      // The API's words for a container not started yet name the reason (ContainerCreating).
      Say(task, k8s::IsWaitingToStart(error) ? error.message
                : waiting                    ? "pod " + name + " " + PodState(pod)
                                             : error.message);
      if (!waiting) resume_ = env_.clock.WallNow();
      return any;
    }
    first_tail_ = 0;  // shown once; what follows is new
    if (finished) {
      done_pod_ = name;
    } else {
      resume_ = env_.clock.WallNow();  // the stream ended: the container exited, or the connection did
    }
    return any;
  }

  core::Error FailedError(const JobState& state) {
    if (last_.empty() && !pod_.empty()) {
      k8s::PodLogOptions options;
      options.tail_lines = kFailureLines;
      LogsRequest request{{LogTarget::Kind::kPod, pod_}, outcome_.ns, "", options, false, 1};
      // Best effort: a log that cannot be read leaves the message without it.
      (void)StreamLogs(env_.apply.client, request, {[&](std::string_view lines) { last_.Add(lines); }, {}}, nullptr);
    }
    std::string message = "job/" + outcome_.job + " failed";
    if (!state.reason.empty()) message += " (" + state.reason + ")";
    if (!last_.empty()) message += "; its last log lines:\n" + last_.Text();
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return core::Error::Make(core::ErrorKind::kFailedPrecondition, message);
  }

  ServeConvertEnv& env_;
  const ServeConvertOutcome& outcome_;
  int first_tail_;
  LastLines last_;
  std::string pod_;                                              // the pod followed
  std::string done_pod_;                                         // a finished pod whose whole log has been read
  std::optional<std::chrono::system_clock::time_point> resume_;  // when its last stream ended
  std::string last_stamp_;                                       // SortableStamp of the last line shown
  int same_stamp_ = 0;                                           // lines shown with that timestamp
  std::string said_;                                             // the last progress state
};

}  // namespace

core::Result<std::vector<std::string>> ConverterSetsFor(const std::string& model, const std::string& bucket) {
  if (model == "llama3.1-405b") return std::vector<std::string>{};
  if (model == "llama2-70b") {
    std::vector<std::string> sets = {"MODEL_NAME=llama-2", "MODEL_PATH=Llama-2-70b-chat"};
    if (!bucket.empty()) sets.push_back("OUTPUT_DIRECTORY=gs://" + bucket + "/maxtext/llama-2-70b");
    return sets;
  }
  return core::Fail(core::Error::Usage("--model: " + model +
                                       " has no checkpoint conversion; converted are llama3.1-405b and llama2-70b "
                                       "(the models serve up serves)"));
}

std::string CheckpointOf(const k8s::Object& job) {
  // Each level checked: a manifest is what a user's --set made of it.
  auto member = [](const json& object, const char* key) {
    auto found = object.is_object() ? object.find(key) : object.end();
    return found != object.end() ? *found : json();
  };
  const json containers = member(member(member(member(job.json, "spec"), "template"), "spec"), "containers");
  if (!containers.is_array()) return "";
  for (const auto& container : containers) {
    const json args = member(container, "args");
    const std::string output = ArgValue(args, "--output_directory");
    const std::string quantize = ArgValue(args, "--quantize_type");
    if (!output.empty() && !quantize.empty()) return output + "/" + quantize;
  }
  return "";
}

JobState JobStateOf(const json& job) {
  JobState state;
  for (const auto& condition : core::ArrayAt(core::ObjectAt(job, "status"), "conditions")) {
    if (core::StringAt(condition, "status") != "True") continue;
    const std::string type = core::StringAt(condition, "type");
    if (type == "Complete") state.phase = JobState::Phase::kComplete;
    if (type == "Failed") {
      state.phase = JobState::Phase::kFailed;
      state.reason = core::StringAt(condition, "reason");
      const std::string message = core::StringAt(condition, "message");
      if (!message.empty()) state.reason += (state.reason.empty() ? "" : ": ") + message;
    }
  }
  return state;
}

void LastLines::Add(std::string_view lines) {
  while (!lines.empty()) {
    const auto end = lines.find('\n');
    const auto length = end == std::string_view::npos ? lines.size() : end + 1;
    lines_.emplace_back(lines.substr(0, length));
    if (lines_.back().back() != '\n') lines_.back() += '\n';
    if (lines_.size() > capacity_) lines_.pop_front();
    lines.remove_prefix(length);
  }
}

std::string LastLines::Text() const {
  std::string text;
  for (const auto& line : lines_) text += line;
  return text;
}

core::Result<ServeConvertOutcome> ServeConvert(ServeConvertEnv& env, const ServeConvertRequest& request) {
  auto rendered = RenderConverter(request);
  if (!rendered) return core::Fail(rendered.error());
  ServeConvertOutcome outcome;
  outcome.ns = request.ns.empty() ? env.apply.client.default_namespace() : request.ns;
  outcome.job = rendered->job.name;
  outcome.checkpoint = CheckpointOf(rendered->job);

  k8s::ApplyOptions options;
  options.ns = outcome.ns;
  options.dry_run = request.dry_run;
  const std::string task = "convert " + outcome.job;
  env.reporter.Progress(task, "applying " + std::string(kConverterTemplate));
  auto applied = ApplyRecorded(env.apply, rendered->objects, options);
  if (!applied) {
    core::Error error = applied.error();
    if (error.message.find("field is immutable") != std::string::npos) {
      // A Job's pod template cannot change: the one there was made with other values.
      error.message += " (job/" + outcome.job + " exists with other values: delete it first, or --set JOB_NAME=...)";
    }
    return core::Fail(error);
  }
  outcome.applied = std::move(*applied);
  for (const auto& result : outcome.applied) {
    if (result.object.kind == "Job" && result.object.name == outcome.job) {
      outcome.reattached = result.action != k8s::ApplyAction::kCreated;
    }
  }
  if (request.dry_run || !request.follow) return outcome;

  outcome.followed = true;
  Follower follower(env, outcome, outcome.reattached ? request.reattach_tail : 0);
  auto followed = follower.Run();
  if (!followed) return core::Fail(followed.error());
  outcome.complete = true;
  return outcome;
}

}  // namespace tputrain::workflow
