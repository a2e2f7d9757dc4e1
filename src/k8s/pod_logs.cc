#include "tputrain/k8s/pod_logs.h"

namespace tputrain::k8s {

std::string PodLogPath(const std::string& ns, const std::string& pod, const PodLogOptions& options) {
  std::string query;
  auto add = [&](const std::string& name, const std::string& value) {
    query += (query.empty() ? "?" : "&") + name + "=" + http::UrlEncode(value);
  };
  if (!options.container.empty()) add("container", options.container);
  if (options.follow) add("follow", "true");
  if (options.since_seconds) add("sinceSeconds", std::to_string(*options.since_seconds));
  if (options.tail_lines) add("tailLines", std::to_string(*options.tail_lines));
  if (options.timestamps) add("timestamps", "true");
  if (options.previous) add("previous", "true");
  return "/api/v1/namespaces/" + http::PathSegment(ns) + "/pods/" + http::PathSegment(pod) + "/log" + query;
}

core::Status StreamPodLog(Client& client, const std::string& ns, const std::string& pod, const PodLogOptions& options,
                          const core::CancelToken* cancel, const http::ChunkHandler& on_chunk) {
  // No overall timeout: a followed log lasts as long as the container; Ctrl-C ends it.
  auto response = client.StreamChunks(PodLogPath(ns, pod, options), std::chrono::milliseconds(0), cancel, on_chunk);
  if (!response) return core::Fail(response.error());
  if (!response->ok()) return core::Fail(ErrorFromStatus(response->status, response->body, "pod/" + pod));
  return {};
}

bool IsWaitingToStart(const core::Error& error) {
  // The kubelet's refusal, passed on by the API server as a 400 Status (kubelet_pods.go,
  // validateContainerLogStatus); "ContainerCreating", "PodInitializing", "ImagePullBackOff", ...
  return error.http_status == 400 && error.message.find("is waiting to start") != std::string::npos;
}

}  // namespace tputrain::k8s
