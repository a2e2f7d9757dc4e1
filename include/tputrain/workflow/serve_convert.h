#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/poll.h"
#include "tputrain/core/reporter.h"
#include "tputrain/core/result.h"
#include "tputrain/core/runtime.h"
#include "tputrain/k8s/apply.h"
#include "tputrain/k8s/manifest.h"
#include "tputrain/workflow/apply_recorded.h"
#include "tputrain/workflow/kube_access.h"

// `tputrain serve convert`: seed 002's checkpoint conversion (Meta's Llama weights to a quantized
// MaxText checkpoint) as the checkpoint-converter Job on a CPU node pool, applied and followed
// until it ends: hours for 405B, so following can stop and start again without touching the Job.
namespace tputrain::workflow {

inline constexpr char kConverterTemplate[] = "checkpoint-converter";

// The template values that make the converter write what `serve up --model MODEL` reads by
// default: none for llama3.1-405b (the template's defaults), the family, Meta model id and
// output directory for llama2-70b (its directory needs the bucket, empty when not configured;
// the render then names BUCKET). Another model is a usage error naming --model.
core::Result<std::vector<std::string>> ConverterSetsFor(const std::string& model, const std::string& bucket);

// Where the rendered converter Job writes the checkpoint: its --output_directory, then
// /--quantize_type, as the converter script lays it out. Empty when the Job lacks either.
std::string CheckpointOf(const k8s::Object& job);

// What a Job's conditions say of it.
struct JobState {
  enum class Phase { kRunning, kComplete, kFailed };
  Phase phase = Phase::kRunning;
  std::string reason;  // the Failed condition's reason and message ("BackoffLimitExceeded: ...")
};
JobState JobStateOf(const nlohmann::json& job);

// The last `capacity` whole lines of a stream, for the failure message.
class LastLines {
 public:
  explicit LastLines(std::size_t capacity) : capacity_(capacity) {}
  void Add(std::string_view lines);  // one or more lines, each ending in '\n'
  std::string Text() const;          // the kept lines, each ending in '\n'
  bool empty() const { return lines_.empty(); }

 private:
  std::size_t capacity_;
  std::deque<std::string> lines_;
};

struct ServeConvertRequest {
  std::string model;                                 // llama3.1-405b, llama2-70b (ConverterSetsFor)
  std::vector<std::string> sets;                     // NAME=VALUE for the template, after the model's own
  std::map<std::string, std::string> configuration;  // BUCKET, PROJECT_ID, ... (ConfigurationValues)
  std::vector<std::string> template_dirs;
  std::string ns;        // empty: the client's default namespace
  bool follow = true;    // false: return once applied
  bool dry_run = false;  // the server validates the apply; nothing is stored or followed
  // Lines of the log shown when following a Job that was already there (a re-attach): the
  // hours before are not replayed. A new Job's log is shown whole.
  int reattach_tail = 20;
};

// The runtime's cancel token is Ctrl-C: the follow stops, the Job goes on.
struct ServeConvertEnv : core::Runtime {
  RecordedApplyEnv& apply;
  std::function<void(std::string_view)> on_log;  // the converter's log, whole lines
};

struct ServeConvertOutcome {
  std::string ns;
  std::string job;
  std::string checkpoint;  // gs://BUCKET/maxtext/llama-3.1-405b/int8
  std::vector<k8s::ApplyResult> applied;
  bool reattached = false;  // the Job was there already, unchanged
  bool followed = false;
  bool complete = false;  // the Job's Complete condition
  std::string model;      // as asked, for the JSON
  bool dry_run = false;
};

// Renders the checkpoint-converter template for the model, applies it (ledgered, so cleanup
// deletes it), and unless told not to follows its pod's log until the Job is Complete. A Job that
// fails (its Failed condition) or a pod that cannot start (an image that cannot be pulled, ...)
// is a kFailedPrecondition error with the last log lines; Ctrl-C is kCancelled, the Job left to
// run. The log is followed again after a dropped connection, from where it stopped.
core::Result<ServeConvertOutcome> ServeConvert(ServeConvertEnv& env, const ServeConvertRequest& request);

// `serve convert`'s flags, as typed.
struct ServeConvertFlags {
  KubeAccessFlags access;
  LedgerFlags ledger;  // --run, --state-dir
  std::string model;
  std::string bucket;  // empty: ChooseBucket's
  std::vector<std::string> sets;
  bool follow = true;
  bool dry_run = false;
};

// The model checked first, the configuration's values (BUCKET as ServeConfiguration finds it),
// the run resolved before the cluster is reached (a ledger that cannot record refuses the command
// before any call), then ServeConvert, the converter's log to `on_log`. Ctrl-C is a kCancelled
// error that says the Job goes on and how to follow it again.
core::Result<ServeConvertOutcome> ServeConvert(Root& root, const ServeConvertFlags& flags,
                                               const std::function<void(std::string_view)>& on_log);

// `serve convert --format json`: the model, the Job, the checkpoint, whether it was re-attached,
// followed and complete, and each object applied (its action as a --dry-run names it).
nlohmann::json ToJson(const ServeConvertOutcome& outcome);

}  // namespace tputrain::workflow
