#pragma once

#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/cancel.h"
#include "tputrain/core/result.h"
#include "tputrain/k8s/client.h"
#include "tputrain/k8s/pod_logs.h"
#include "tputrain/workflow/kube_access.h"

// `tputrain logs TARGET`: the pods of a workload, their containers chosen as kubectl chooses
// them, and their logs read or followed together, line by line.
namespace tputrain::workflow {

// What TARGET names, with kubectl's spellings of each kind: "lws/NAME" (leaderworkerset(s)),
// "jobset/NAME" (jobsets), "raycluster/NAME" (rayclusters), "job/NAME" (jobs), "deploy/NAME"
// (deployment(s)), "pod/NAME" (po, pods) or a bare NAME (a pod). Kinds are case-insensitive.
struct LogTarget {
  enum class Kind { kPod, kLeaderWorkerSet, kJobSet, kRayCluster, kJob, kDeployment };
  Kind kind = Kind::kPod;
  std::string name;

  std::string Text() const;  // "lws/NAME", "pod/NAME"
};

// An unknown kind or a name the API would refuse is one usage line naming TARGET.
core::Result<LogTarget> ParseLogTarget(std::string_view text);

// The label selectors that find the pods of `target`, tried in order until one finds any
// (a Job's pods carry batch.kubernetes.io/job-name since Kubernetes 1.27, only job-name
// before). Empty for a pod and a Deployment (whose selector is read from the object).
std::vector<std::string> PodSelectors(const LogTarget& target);

// The container of `pod` to read as kubectl picks it: `requested` if the pod has it (an init or
// ephemeral container too), else the one its kubectl.kubernetes.io/default-container annotation
// names, else its only container. Otherwise one usage line naming -c/--container and listing
// the pod's containers.
core::Result<std::string> ChooseContainer(const nlohmann::json& pod, const std::string& requested);

// "[pod/NAME/CONTAINER] ", as kubectl logs --prefix writes it.
std::string LinePrefix(const std::string& pod, const std::string& container);

// Whole lines from many streams to one writer: each line is written in one call, under one lock,
// so lines from concurrent streams interleave but never mix; notices (for people, on stderr)
// take the same lock, so a terminal showing both never gets a notice inside a line.
class LineSink {
 public:
  explicit LineSink(std::function<void(std::string_view)> write, std::function<void(std::string_view)> notice = {})
      : write_(std::move(write)), notice_(std::move(notice)) {}
  void Write(std::string_view lines);  // one or more complete lines, each ending in '\n'
  void Notice(std::string_view line);  // one line, without its newline

 private:
  std::mutex mutex_;
  std::function<void(std::string_view)> write_;
  std::function<void(std::string_view)> notice_;
};

// One stream's chunks cut into whole lines, each prefixed, to a shared LineSink. A line longer
// than `max_line` goes out in pieces of that size rather than growing without bound.
class LineJoiner {
 public:
  static constexpr size_t kMaxLine = 1 << 20;
  LineJoiner(LineSink& sink, std::string prefix, size_t max_line = kMaxLine)
      : sink_(sink), prefix_(std::move(prefix)), max_line_(max_line == 0 ? 1 : max_line) {}
  void Add(std::string_view chunk);
  // At the end of the stream: a last line without its newline goes out with one.
  void Finish();

 private:
  LineSink& sink_;
  std::string prefix_;
  size_t max_line_;
  std::string pending_;
};

struct LogsRequest {
  LogTarget target;
  std::string ns;
  std::string container;       // -c; empty: chosen per pod (ChooseContainer); else read from the pods that have it
  k8s::PodLogOptions log;      // follow, since, tail, timestamps; the container is set per pod
  std::optional<bool> prefix;  // unset: on when there are several pods
  int max_log_requests = 5;    // concurrent follows, as kubectl's --max-log-requests
};

struct LogsSinks {
  std::function<void(std::string_view)> out;     // whole lines, one call at a time
  std::function<void(std::string_view)> notice;  // one line about one stream (a waiting pod)
};

// Reads the logs of the target's pods (sorted by name). A -c container is read from the pods
// that have it; the others are named in one notice (a JetStream leader and its workers run
// different containers), and only when no pod has it is it an error. Several streams are
// followed concurrently (at most max_log_requests, else a usage error naming the flag, before
// any log is read) and read one after the other without --follow, as kubectl does. A pod that
// is not scheduled or whose container is waiting to start is one notice, and the other streams
// go on; any other failure of one stream is a notice too, and the command fails at the end.
// With one stream, its failure is the error. Cancellation (Ctrl-C) ends every stream and
// returns kCancelled.
core::Status StreamLogs(k8s::Client& client, const LogsRequest& request, const LogsSinks& sinks,
                        const core::CancelToken* cancel);

// `tputrain logs TARGET`'s flags, as typed.
struct LogsFlags {
  KubeAccessFlags access;
  std::string target;
  std::string container;  // -c
  bool follow = false;
  std::string since;  // core::ParseDuration's grammar; empty: the whole log
  std::string tail;   // lines; empty or -1 (kubectl's): all
  bool timestamps = false;
  bool previous = false;
  bool prefix = false;     // --prefix
  bool no_prefix = false;  // --no-prefix
  std::string max_log_requests = "5";

  // Everything that needs no API call, checked (one usage line naming the flag) and put into the
  // request; its namespace is filled once the cluster is reached.
  core::Result<LogsRequest> Resolve() const;
};

// The flags resolved, the cluster reached, the namespace -n's or the context's, then StreamLogs.
core::Status StreamLogs(Root& root, const LogsFlags& flags, const LogsSinks& sinks, const core::CancelToken* cancel);

}  // namespace tputrain::workflow
