// Waiting with watches and deleting, against a real kube-apiserver and the real control plane
// (KubeRay, LeaderWorkerSet, JobSet, the controller manager, the scheduler, kwok nodes): every
// status comes from its controller and deletions are finished by the garbage collector. The test
// decides only when a container starts (a Ray head waits for it) or ends. One exception: the
// scheduler's event shapes are written by hand, for a pod no scheduler takes (see that test).
#include <catch2/catch.hpp>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "k8s/integration_plane.h"
#include "k8s/k8s_test_util.h"
#include "tputrain/k8s/delete.h"
#include "tputrain/k8s/wait.h"

namespace tputrain::testing {
namespace {

// Signals the test once the waiter's n-th watch stream is open.
class WatchGate {
 public:
  std::function<void(int)> callback() {
    return [this](int number) {
      std::lock_guard lock(mutex_);
      opened_ = number;
      changed_.notify_all();
    };
  }
  bool WaitOpened(int number) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(60), [&] { return opened_ >= number; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int opened_ = 0;
};

core::Result<k8s::WaitResult> WaitObjectReady(k8s::Connection& connection, const std::string& api_version,
                                              const std::string& kind, const std::string& name, const std::string& ns,
                                              k8s::WatchOptions options) {
  RealTime time;
  return k8s::WaitReady(*connection.client, *connection.discovery, {api_version, kind, name}, ns, options, time.deps());
}

TEST_CASE("wait returns when the operator marks the RayCluster ready, seen through a watch", "[integration]") {
  auto& plane = IntegrationPlane();
  auto& server = plane.server();
  std::string ns = server.NewNamespace("wait");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  REQUIRE(ApplyYaml(*connection, RayClusterYaml("ray", ns)));
  WatchGate gate;
  k8s::WatchOptions options;
  options.timeout = std::chrono::seconds(120);
  options.on_watch_started = gate.callback();
  auto waiter = std::async(std::launch::async,
                           [&] { return WaitObjectReady(*connection, "ray.io/v1", "RayCluster", "ray", ns, options); });
  REQUIRE(gate.WaitOpened(1));
  // KubeRay has made the head pod and written a status that is not ready: the wait goes on until
  // the head's container starts.
  plane.StartPod(ns, plane.WaitScheduledPod(ns, "ray.io/cluster=ray,ray.io/node-type=head"));
  auto result = waiter.get();
  REQUIRE(result);
  CHECK(result->object["status"]["state"] == "ready");
  CHECK(result->stats.lists == 1);
  CHECK(result->stats.watches >= 1);
}

TEST_CASE("a dropped watch is resumed and still sees the change", "[integration]") {
  auto& plane = IntegrationPlane();
  auto& server = plane.server();
  std::string ns = server.NewNamespace("dropped");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  REQUIRE(ApplyYaml(*connection, RayClusterYaml("ray", ns)));
  WatchGate gate;
  k8s::WatchOptions options;
  options.timeout = std::chrono::seconds(180);
  options.on_watch_started = gate.callback();
  auto waiter = std::async(std::launch::async,
                           [&] { return WaitObjectReady(*connection, "ray.io/v1", "RayCluster", "ray", ns, options); });
  REQUIRE(gate.WaitOpened(1));
  std::string head = plane.WaitScheduledPod(ns, "ray.io/cluster=ray,ray.io/node-type=head");
  server.RestartApiServer();  // kills the server under the open watch
  plane.StartPod(ns, head);
  auto result = waiter.get();
  INFO((result ? std::string() : result.error().message));
  REQUIRE(result);
  CHECK(result->object["status"]["state"] == "ready");
  CHECK(result->stats.watches >= 2);
  CHECK(result->stats.resumes + result->stats.relists >= 1);
}

TEST_CASE("a wait that times out says why: pending pods and their latest event", "[integration]") {
  auto& plane = IntegrationPlane();
  auto& server = plane.server();
  std::string ns = server.NewNamespace("timeout");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  // A head asking for a TPU chip, which no node of this cluster has: the real scheduler says so.
  REQUIRE(ApplyYaml(*connection, RayClusterYaml("ray", ns) +
                                     "          resources:\n            limits:\n              google.com/tpu: 4\n"));
  std::string head;
  REQUIRE(WaitFor(
      [&] {
        auto events = server.admin().GetJson(
            "/api/v1/namespaces/" + ns + "/events?fieldSelector=" + http::UrlEncode("reason=FailedScheduling"), "");
        if (!events || (*events)["items"].empty()) return false;
        head = (*events)["items"][0]["involvedObject"].value("name", "");
        return true;
      },
      std::chrono::seconds(60)));
  k8s::WatchOptions options;
  options.timeout = std::chrono::seconds(2);
  auto result = WaitObjectReady(*connection, "ray.io/v1", "RayCluster", "ray", ns, options);
  REQUIRE_FALSE(result);
  INFO(result.error().message);
  CHECK(result.error().kind == core::ErrorKind::kDeadlineExceeded);
  CHECK(result.error().message.find("timed out after 2s waiting for RayCluster " + ns + "/ray") != std::string::npos);
  CHECK(result.error().message.find("state is not set") != std::string::npos);
  CHECK(result.error().message.find("pod " + head + " Pending: FailedScheduling: 0/") != std::string::npos);
  CHECK(result.error().message.find(" Insufficient google.com/tpu") != std::string::npos);
}

TEST_CASE("the scheduler's events (events.k8s.io/v1: eventTime and series, lastTimestamp null) explain a timeout",
          "[integration]") {
  auto& server = IntegrationPlane().server();
  std::string ns = server.NewNamespace("sched-events");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  // A named exception to "the controllers write it": the scheduler's three event shapes, in an
  // order and with a series that the real scheduler does not give on demand, are written here
  // for a pod of a scheduler that does not run (so the real one leaves it Pending and silent).
  // The real scheduler's own event is read in raycluster_plane_integration_test.cc.
  REQUIRE(ApplyYaml(*connection, RayClusterYaml("ray", ns) +
                                     "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: ray-tpu-group-worker-4fzkq\n"
                                     "  labels:\n    ray.io/cluster: ray\nspec:\n  schedulerName: not-running\n"
                                     "  containers:\n  - name: ray-worker\n    image: rayproject/ray:2.60.0\n"));
  auto pod = server.admin().GetJson("/api/v1/namespaces/" + ns + "/pods/ray-tpu-group-worker-4fzkq", "");
  REQUIRE(pod);
  const nlohmann::json regarding = {{"kind", "Pod"},
                                    {"namespace", ns},
                                    {"name", "ray-tpu-group-worker-4fzkq"},
                                    {"uid", (*pod)["metadata"]["uid"]},
                                    {"apiVersion", "v1"},
                                    {"resourceVersion", (*pod)["metadata"]["resourceVersion"]}};
  // As kube-scheduler records it (events.k8s.io/v1, EventRecorder): eventTime with microseconds,
  // reporting controller and instance, action, note; a repeat is the same event with a series.
  auto scheduler_event = [&](const std::string& name, const std::string& event_time, const std::string& note) {
    return nlohmann::json{{"apiVersion", "events.k8s.io/v1"},
                          {"kind", "Event"},
                          {"metadata", {{"name", name}, {"namespace", ns}}},
                          {"eventTime", event_time},
                          {"reportingController", "default-scheduler"},
                          {"reportingInstance", "default-scheduler-tpu-test"},
                          {"action", "Scheduling"},
                          {"reason", "FailedScheduling"},
                          {"type", "Warning"},
                          {"regarding", regarding},
                          {"note", note}};
  };
  auto post = [&](const std::string& path, const nlohmann::json& event) {
    auto posted = server.admin().Send("POST", path, event.dump());
    REQUIRE(posted);
    INFO(posted->body);
    REQUIRE(posted->ok());
  };
  const std::string events_v1 = "/apis/events.k8s.io/v1/namespaces/" + ns + "/events";
  auto repeated = scheduler_event("ray-tpu-group-worker-4fzkq.18a7c3e5d1a2b3c4", "2026-11-22T09:58:00.000001Z",
                                  "0/31 nodes are available: 8 Insufficient google.com/tpu, 23 node(s) didn't match "
                                  "Pod's node affinity/selector. preemption: 0/31 nodes are available: 31 Preemption "
                                  "is not helpful for scheduling.");
  repeated["series"] = {{"count", 3}, {"lastObservedTime", "2026-11-22T10:00:02.250000Z"}};
  post(events_v1, repeated);
  post(events_v1, scheduler_event("ray-tpu-group-worker-4fzkq.18a7c3e5d1a2b3c5", "2026-11-22T09:59:30.500000Z",
                                  "0/31 nodes are available: an older reason."));
  // And one in the core/v1 form, whole seconds: later than the first eventTime, earlier than
  // the series' last observation.
  post("/api/v1/namespaces/" + ns + "/events",
       {{"apiVersion", "v1"},
        {"kind", "Event"},
        {"metadata", {{"name", "ray-tpu-group-worker-4fzkq.core"}, {"namespace", ns}}},
        {"involvedObject", regarding},
        {"reason", "FailedScheduling"},
        {"message", "0/31 nodes are available: a core/v1 reason."},
        {"type", "Warning"},
        {"lastTimestamp", "2026-11-22T10:00:02Z"},
        {"firstTimestamp", "2026-11-22T10:00:02Z"},
        {"count", 1}});
  // Read as core/v1, as tputrain reads them: the scheduler's have no lastTimestamp. Only this
  // pod's events count: the real scheduler may write its own about KubeRay's head meanwhile.
  auto listed = server.admin().GetJson("/api/v1/namespaces/" + ns + "/events", "");
  REQUIRE(listed);
  int without_last_timestamp = 0;
  for (const auto& item : (*listed)["items"]) {
    if (item["involvedObject"].value("name", "") != "ray-tpu-group-worker-4fzkq") continue;
    if (item.contains("lastTimestamp") && item["lastTimestamp"].is_null()) ++without_last_timestamp;
  }
  CHECK(without_last_timestamp == 2);

  k8s::WatchOptions options;
  options.timeout = std::chrono::seconds(2);
  auto result = WaitObjectReady(*connection, "ray.io/v1", "RayCluster", "ray", ns, options);
  REQUIRE_FALSE(result);
  INFO(result.error().message);
  CHECK(result.error().kind == core::ErrorKind::kDeadlineExceeded);
  CHECK(result.error().message.find("pod ray-tpu-group-worker-4fzkq Pending: FailedScheduling: 0/31 nodes are "
                                    "available: 8 Insufficient google.com/tpu, 23 node(s) didn't match Pod's node "
                                    "affinity/selector.") != std::string::npos);
}

TEST_CASE("KubeRay's ReplicaFailure ends the wait at once, with the API server's refusal", "[integration]") {
  auto& server = IntegrationPlane().server();
  std::string ns = server.NewNamespace("replica-failure");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  // A worker pod the API server refuses: the replica key in labelSelector and matchLabelKeys.
  nlohmann::json term = {
      {"labelSelector",
       {{"matchLabels", {{"ray.io/node-type", "worker"}}},
        {"matchExpressions", {{{"key", "ray.io/worker-group-replica-name"}, {"operator", "Exists"}}}}}},
      {"matchLabelKeys", {"ray.io/worker-group-replica-name"}},
      {"topologyKey", "cloud.google.com/gke-nodepool"}};
  nlohmann::json affinity = {{"podAffinity", {{"requiredDuringSchedulingIgnoredDuringExecution", {term}}}}};
  WatchGate gate;
  k8s::WatchOptions options;
  options.timeout = std::chrono::minutes(20);  // submit's default: the failure must not wait for it
  options.on_watch_started = gate.callback();
  // The refusal as the API server words it, for a pod like KubeRay's.
  nlohmann::json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", "ray-tpu-group-worker-x7k2p"},
        {"labels",
         {{"ray.io/cluster", "other"},
          {"ray.io/node-type", "worker"},
          {"ray.io/worker-group-replica-name", "ray-tpu-group-0-abcde"}}}}},
      {"spec",
       {{"containers", {{{"name", "ray-worker"}, {"image", "rayproject/ray:2.60.0"}}}}, {"affinity", affinity}}}};
  auto refused = server.admin().Send("POST", "/api/v1/namespaces/" + ns + "/pods", pod.dump());
  REQUIRE(refused);
  REQUIRE(refused->status == 422);
  const std::string api_message = nlohmann::json::parse(refused->body)["message"];
  INFO(api_message);
  CHECK(api_message.find("exists in both matchLabelKeys and labelSelector") != std::string::npos);

  // The real KubeRay meets the same refusal for each worker pod it makes, and says so in its
  // ReplicaFailure condition (reason FailedCreateWorkerPod).
  REQUIRE(ApplyYaml(*connection, RayClusterYaml("ray", ns) +
                                     "  workerGroupSpecs:\n  - groupName: tpu-group\n    replicas: 1\n"
                                     "    numOfHosts: 2\n    rayStartParams: {}\n    template:\n      spec:\n"
                                     "        affinity: " +
                                     affinity.dump() +
                                     "\n        containers:\n        - name: ray-worker\n"
                                     "          image: rayproject/ray:2.60.0\n"));
  auto waiter = std::async(std::launch::async,
                           [&] { return WaitObjectReady(*connection, "ray.io/v1", "RayCluster", "ray", ns, options); });
  REQUIRE(gate.WaitOpened(1));
  auto result = waiter.get();
  REQUIRE_FALSE(result);
  INFO(result.error().message);
  CHECK(result.error().kind == core::ErrorKind::kFailedPrecondition);
  // KubeRay's pod has a name of its own in the message; the rest is the API server's refusal.
  const std::string refusal = api_message.substr(api_message.find(" is invalid: "));
  CHECK(
      result.error().message.starts_with("RayCluster " + ns + "/ray failed: ReplicaFailure: FailedCreateWorkerPod: "));
  CHECK(result.error().message.ends_with(refusal));
  CHECK(result.error().message.find('\n') == std::string::npos);
}

TEST_CASE("readiness of LeaderWorkerSet, JobSet, Deployment and Pod comes from their status", "[integration]") {
  auto& plane = IntegrationPlane();
  auto& server = plane.server();
  std::string ns = server.NewNamespace("kinds");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  std::string pod_template = "      spec:\n        containers:\n        - name: main\n          image: busybox\n";
  auto applied =
      ApplyYaml(*connection,
                "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: lws\nspec:\n"
                "  leaderWorkerTemplate:\n    size: 2\n    workerTemplate:\n" +
                    pod_template +
                    "---\napiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: js\nspec:\n"
                    "  replicatedJobs:\n  - name: w\n    replicas: 1\n    template:\n      spec:\n"
                    "        backoffLimit: 0\n        template:\n"
                    "          spec:\n            restartPolicy: Never\n            containers:\n"
                    "            - name: main\n              image: busybox\n"
                    "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: dep\nspec:\n  replicas: 2\n"
                    "  selector:\n    matchLabels: {app: dep}\n  template:\n    metadata:\n      labels: {app: dep}\n"
                    "    spec:\n      containers:\n      - name: main\n        image: busybox\n"
                    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: pod\nspec:\n  containers:\n  - name: main\n"
                    "    image: busybox\n");
  INFO((applied ? "" : applied.error().message));
  REQUIRE(applied);
  k8s::WatchOptions options;
  options.timeout = std::chrono::seconds(60);
  auto& admin = server.admin();

  // LWS: Available (AllGroupsReady) once its leader and worker pods run.
  CHECK(WaitObjectReady(*connection, "leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", "lws", ns, options));

  // JobSet: its one pod exits 1, so the Job (backoffLimit 0) fails, and the JobSet with it.
  std::string worker = plane.WaitScheduledPod(ns, "jobset.sigs.k8s.io/jobset-name=js");
  REQUIRE(WaitFor(
      [&] {
        auto pod = admin.GetJson("/api/v1/namespaces/" + ns + "/pods/" + worker, "");
        return pod && (*pod)["status"].value("phase", "") == "Running";
      },
      std::chrono::seconds(60)));
  plane.EndPod(ns, worker, 1);
  auto jobset = WaitObjectReady(*connection, "jobset.x-k8s.io/v1alpha2", "JobSet", "js", ns, options);
  REQUIRE_FALSE(jobset);
  CHECK(jobset.error().message.find("failed: Failed: FailedJobs: jobset failed due to") != std::string::npos);

  CHECK(WaitObjectReady(*connection, "apps/v1", "Deployment", "dep", ns, options));
  CHECK(WaitObjectReady(*connection, "v1", "Pod", "pod", ns, options));
}

TEST_CASE("delete goes in reverse order with foreground propagation, each gone before the next", "[integration]") {
  auto& server = IntegrationPlane().server();
  std::string ns = "del-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 1000000);
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), "default"));
  std::string yaml = RayClusterYaml("ray", ns) +
                     "---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: ray\n"
                     "  namespace: " +
                     ns + "\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + ns + "\n";
  auto applied = ApplyYaml(*connection, yaml);
  REQUIRE(applied);
  REQUIRE((*applied)[0].object.kind == "Namespace");

  // The garbage collector finishes each foreground deletion (the RayCluster's pods first), the
  // namespace controller the namespace's.
  std::vector<std::string> order;
  std::vector<int> status_after;
  RealTime time;
  k8s::DeleteOptions options;
  options.timeout = std::chrono::seconds(60);
  auto deleted = k8s::Delete(*connection->client, *connection->discovery, Parse(yaml), options, time.deps(),
                             [&](const k8s::DeleteResult& result) {
                               order.push_back(result.object.kind);
                               std::string path = result.object.kind == "Namespace" ? "/api/v1/namespaces/" + ns
                                                  : result.object.kind == "ServiceAccount"
                                                      ? "/api/v1/namespaces/" + ns + "/serviceaccounts/ray"
                                                      : "/apis/ray.io/v1/namespaces/" + ns + "/rayclusters/ray";
                               auto response = server.admin().Send("GET", path);
                               status_after.push_back(response ? response->status : 0);
                             });
  REQUIRE(deleted);
  CHECK(order == std::vector<std::string>{"RayCluster", "ServiceAccount", "Namespace"});
  CHECK(status_after == std::vector<int>{404, 404, 404});

  // Deleting again finds nothing and is not an error.
  auto again = k8s::Delete(*connection->client, *connection->discovery, Parse(yaml), options, time.deps());
  REQUIRE(again);
  for (const auto& result : *again) CHECK_FALSE(result.existed);
}

}  // namespace
}  // namespace tputrain::testing
