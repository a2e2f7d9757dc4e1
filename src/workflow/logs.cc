// tputrain logs: which pods, which container, and the streams read or followed together.
#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>

#include "tputrain/core/json_fields.h"
#include "tputrain/k8s/readiness.h"
#include "tputrain/workflow/logs.h"

namespace tputrain::workflow {
namespace {

using Kind = LogTarget::Kind;

std::string PodsPath(const std::string& ns) { return "/api/v1/namespaces/" + http::PathSegment(ns) + "/pods"; }

core::Result<std::vector<nlohmann::json>> ListPods(k8s::Client& client, const std::string& ns,
                                                   const std::string& selector) {
  auto list = client.GetJson(PodsPath(ns) + "?labelSelector=" + http::UrlEncode(selector), "pods in " + ns);
  if (!list) return core::Fail(list.error());
  std::vector<nlohmann::json> pods;
  if (list->contains("items") && (*list)["items"].is_array()) {
    for (const auto& pod : (*list)["items"]) pods.push_back(pod);
  }
  return pods;
}

// The Deployment's spec.selector.matchLabels as a label selector.
core::Result<std::string> DeploymentSelector(k8s::Client& client, const LogTarget& target, const std::string& ns) {
  auto deployment = client.GetJson(
      "/apis/apps/v1/namespaces/" + http::PathSegment(ns) + "/deployments/" + http::PathSegment(target.name),
      target.Text());
  if (!deployment) return core::Fail(deployment.error());
  std::string selector = k8s::PodSelectorFor("Deployment", *deployment);
  if (selector.empty()) {
    return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                        target.Text() + ": its selector has no matchLabels to find its pods by"));
  }
  return selector;
}

core::Result<std::vector<nlohmann::json>> SelectPods(k8s::Client& client, const LogTarget& target,
                                                     const std::string& ns) {
  if (target.kind == Kind::kPod) {
    auto pod = client.GetJson(PodsPath(ns) + "/" + http::PathSegment(target.name), target.Text());
    if (!pod) return core::Fail(pod.error());
    return std::vector<nlohmann::json>{*pod};
  }
  std::vector<std::string> selectors = PodSelectors(target);
  if (target.kind == Kind::kDeployment) {
    auto selector = DeploymentSelector(client, target, ns);
    if (!selector) return core::Fail(selector.error());
    selectors = {*selector};
  }
  for (const auto& selector : selectors) {
    auto pods = ListPods(client, ns, selector);
    if (!pods) return core::Fail(pods.error());
    if (pods->empty()) continue;
    std::sort(pods->begin(), pods->end(), [](const nlohmann::json& a, const nlohmann::json& b) {
      return core::StringAt(core::ObjectAt(a, "metadata"), "name") <
             core::StringAt(core::ObjectAt(b, "metadata"), "name");
    });
    return pods;
  }
  auto error =
      core::Error::Make(core::ErrorKind::kNotFound, target.Text() + ": no pods in namespace " + ns + " with " +
                                                        selectors.front() + " (not created yet, or already deleted?)");
  error.where = "kubernetes";
  return core::Fail(error);
}

struct Stream {
  std::string pod;
  std::string container;
  std::string node;  // spec.nodeName: empty while the pod is not scheduled
  std::string phase;
};

// "pod/a-0: proxy, jax-tpu; pod/a-0-1: worker; ...": the containers of the first three pods.
std::string ContainersOf(const std::vector<nlohmann::json>& pods) {
  constexpr size_t kShown = 3;
  std::string text;
  for (size_t i = 0; i < pods.size() && i < kShown; ++i) {
    text += (i == 0 ? "pod/" : "; pod/") + core::StringAt(core::ObjectAt(pods[i], "metadata"), "name") + ":";
    const char* separator = " ";
    for (const auto& container : core::ArrayAt(core::ObjectAt(pods[i], "spec"), "containers")) {
      text += separator + core::StringAt(container, "name");
      separator = ", ";
    }
  }
  if (pods.size() > kShown) text += "; ...";
  return text;
}

// "skipped pod/a-0-1, pod/a-0-2: no container \"jax-tpu\"", naming at most five.
std::string SkippedLine(const std::vector<std::string>& pods, const std::string& container) {
  constexpr size_t kNamed = 5;
  std::string names;
  for (size_t i = 0; i < pods.size() && i < kNamed; ++i) names += (i == 0 ? "" : ", ") + pods[i];
  if (pods.size() > kNamed) names += " and " + std::to_string(pods.size() - kNamed) + " more";
  return "skipped " + names + ": no container \"" + container + "\"";
}

// One stream from start to end; the lines go to `sink`, prefixed when `prefixed`.
core::Status RunStream(k8s::Client& client, const LogsRequest& request, const Stream& stream, LineSink& sink,
                       bool prefixed, const core::CancelToken* cancel) {
  if (stream.node.empty()) {
    // The API server answers an unscheduled pod's log with 204 and no body: say why instead.
    auto error =
        core::Error::Make(core::ErrorKind::kFailedPrecondition,
                          "pod/" + stream.pod + " is " + (stream.phase.empty() ? "Pending" : stream.phase) +
                              ": not scheduled to a node yet, so container \"" + stream.container + "\" has no log");
    error.where = "kubernetes";
    return core::Fail(error);
  }
  k8s::PodLogOptions options = request.log;
  options.container = stream.container;
  LineJoiner joiner(sink, prefixed ? LinePrefix(stream.pod, stream.container) : "");
  auto status = k8s::StreamPodLog(client, request.ns, stream.pod, options, cancel, [&](std::string_view chunk) {
    if (cancel != nullptr && cancel->cancelled()) return false;
    joiner.Add(chunk);
    return true;
  });
  if (cancel != nullptr && cancel->cancelled()) return core::Fail(core::Error::Cancelled());
  joiner.Finish();
  return status;
}

bool IsWaiting(const core::Error& error) {
  return k8s::IsWaitingToStart(error) || error.kind == core::ErrorKind::kFailedPrecondition;
}

}  // namespace

core::Status StreamLogs(k8s::Client& client, const LogsRequest& request, const LogsSinks& sinks,
                        const core::CancelToken* cancel) {
  auto pods = SelectPods(client, request.target, request.ns);
  if (!pods) return core::Fail(pods.error());
  LineSink sink(sinks.out, sinks.notice);
  // Every container is chosen before any log is read, so a wrong -c reads nothing. A -c that
  // only some pods have applies to those: an LWS leader and its workers run different ones.
  std::vector<Stream> streams;
  std::vector<std::string> skipped;
  std::optional<core::Error> missing;
  for (const auto& pod : *pods) {
    auto container = ChooseContainer(pod, request.container);
    const std::string name = core::StringAt(core::ObjectAt(pod, "metadata"), "name");
    if (!container) {
      if (request.container.empty()) return core::Fail(container.error());
      skipped.push_back("pod/" + name);
      if (!missing) missing = container.error();
      continue;
    }
    Stream stream;
    stream.pod = name;
    stream.container = *container;
    stream.node = core::StringAt(core::ObjectAt(pod, "spec"), "nodeName");
    stream.phase = core::StringAt(core::ObjectAt(pod, "status"), "phase");
    streams.push_back(std::move(stream));
  }
  if (streams.empty()) {
    if (pods->size() == 1) return core::Fail(*missing);
    return core::Fail(core::Error::Usage("-c/--container: no pod of " + request.target.Text() + " has a container '" +
                                         request.container + "' (" + ContainersOf(*pods) + ")"));
  }
  if (!skipped.empty()) sink.Notice(SkippedLine(skipped, request.container));
  if (request.log.follow && static_cast<int>(streams.size()) > request.max_log_requests) {
    return core::Fail(core::Error::Usage("--max-log-requests: " + request.target.Text() + " has " +
                                         std::to_string(streams.size()) + " pods to follow, more than the limit of " +
                                         std::to_string(request.max_log_requests) +
                                         "; raise --max-log-requests or follow one pod"));
  }
  bool prefixed = request.prefix.value_or(streams.size() > 1);

  if (streams.size() == 1) return RunStream(client, request, streams.front(), sink, prefixed, cancel);

  std::vector<core::Status> results(streams.size());
  if (request.log.follow) {
    std::vector<std::thread> threads;
    threads.reserve(streams.size());
    for (size_t i = 0; i < streams.size(); ++i) {
      threads.emplace_back([&, i] {
        results[i] = RunStream(client, request, streams[i], sink, prefixed, cancel);
        if (!results[i] && results[i].error().kind != core::ErrorKind::kCancelled) {
          sink.Notice(results[i].error().message);
        }
      });
    }
    for (auto& thread : threads) thread.join();
  } else {
    // As kubectl: without --follow, one pod after the other, each log whole.
    for (size_t i = 0; i < streams.size(); ++i) {
      if (cancel != nullptr && cancel->cancelled()) return core::Fail(core::Error::Cancelled());
      results[i] = RunStream(client, request, streams[i], sink, prefixed, cancel);
      if (!results[i] && results[i].error().kind != core::ErrorKind::kCancelled) {
        sink.Notice(results[i].error().message);
      }
    }
  }
  if (cancel != nullptr && cancel->cancelled()) return core::Fail(core::Error::Cancelled());
  int failed = 0;
  int waiting = 0;
  for (const auto& result : results) {
    if (result) continue;
    if (IsWaiting(result.error())) {
      ++waiting;
    } else {
      ++failed;
    }
  }
  if (failed == 0 && waiting < static_cast<int>(streams.size())) return {};
  auto error = core::Error::Make(failed > 0 ? core::ErrorKind::kUnavailable : core::ErrorKind::kFailedPrecondition,
                                 failed > 0 ? std::to_string(failed) + " of " + std::to_string(streams.size()) +
                                                  " log streams of " + request.target.Text() + " failed"
                                            : "no container of " + request.target.Text() + " has started yet");
  error.where = "kubernetes";
  return core::Fail(error);
}

}  // namespace tputrain::workflow
