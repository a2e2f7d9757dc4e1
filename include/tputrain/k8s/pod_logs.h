#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tputrain/core/cancel.h"
#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"
#include "tputrain/k8s/client.h"

namespace tputrain::k8s {

// The query of GET /api/v1/namespaces/NS/pods/NAME/log, as kubectl logs sends it.
struct PodLogOptions {
  std::string container;  // empty: the server takes the pod's only container
  bool follow = false;
  std::optional<int64_t> since_seconds;
  std::optional<int64_t> tail_lines;
  bool timestamps = false;
  bool previous = false;  // the container's previous instance (kubectl logs --previous): what an OOM kill ended
};

// /api/v1/namespaces/NS/pods/NAME/log?container=C&follow=true&sinceSeconds=S&tailLines=N&timestamps=true
// (only the parameters that are set); `ns` and `pod` go in as one path segment each.
std::string PodLogPath(const std::string& ns, const std::string& pod, const PodLogOptions& options);

// Reads one container's log (following it while the container runs when options.follow), each
// chunk to `on_chunk` as the API server passes it on from the kubelet. A refusal is
// ErrorFromStatus naming pod/NAME: the API's 400 for a container that has not started
// ("container \"c\" in pod \"p\" is waiting to start: ContainerCreating") is IsWaitingToStart.
core::Status StreamPodLog(Client& client, const std::string& ns, const std::string& pod, const PodLogOptions& options,
                          const core::CancelToken* cancel, const http::ChunkHandler& on_chunk);

// The API's answer for a container that is not running yet (ContainerCreating, PodInitializing,
// ImagePullBackOff): there is no log to read, not a failure of the request.
bool IsWaitingToStart(const core::Error& error);

}  // namespace tputrain::k8s
