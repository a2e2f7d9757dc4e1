// Waiting with watches and deleting, against a real kube-apiserver. Nothing but the API server
// runs, so the tests play the operators (writing status) and the garbage collector (clearing
// the foregroundDeletion finalizer).
#include <catch2/catch.hpp>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "k8s/finalizer.h"
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
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
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
  std::string path = "/apis/ray.io/v1/namespaces/" + ns + "/rayclusters/ray";
  WriteStatus(server.admin(), path, {{"state", "failed"}});  // not ready: the wait goes on
  WriteStatus(server.admin(), path, {{"state", "ready"}});
  auto result = waiter.get();
  REQUIRE(result);
  CHECK(result->object["status"]["state"] == "ready");
  CHECK(result->stats.lists == 1);
  CHECK(result->stats.watches >= 1);
}

TEST_CASE("a dropped watch is resumed and still sees the change", "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
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
  server.RestartApiServer();  // kills the server under the open watch
  WriteStatus(server.admin(), "/apis/ray.io/v1/namespaces/" + ns + "/rayclusters/ray", {{"state", "ready"}});
  auto result = waiter.get();
  INFO((result ? std::string() : result.error().message));
  REQUIRE(result);
  CHECK(result->object["status"]["state"] == "ready");
  CHECK(result->stats.watches >= 2);
  CHECK(result->stats.resumes + result->stats.relists >= 1);
}

TEST_CASE("a wait that times out says why: pending pods and their latest event", "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  std::string ns = server.NewNamespace("timeout");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  REQUIRE(ApplyYaml(*connection, RayClusterYaml("ray", ns) +
                                     "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: ray-head-x7k2p\n  labels:\n"
                                     "    ray.io/cluster: ray\nspec:\n  containers:\n  - name: ray-head\n"
                                     "    image: rayproject/ray:2.60.0\n"));
  nlohmann::json event = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata", {{"name", "ray-head-x7k2p.1"}, {"namespace", ns}}},
      {"involvedObject", {{"kind", "Pod"}, {"name", "ray-head-x7k2p"}, {"namespace", ns}, {"apiVersion", "v1"}}},
      {"reason", "FailedScheduling"},
      {"message", "0/3 nodes are available: 3 Insufficient google.com/tpu."},
      {"type", "Warning"},
      {"lastTimestamp", "2026-11-22T10:00:00Z"},
      {"firstTimestamp", "2026-11-22T10:00:00Z"},
      {"count", 1}};
  auto posted = server.admin().Send("POST", "/api/v1/namespaces/" + ns + "/events", event.dump());
  REQUIRE(posted);
  REQUIRE(posted->ok());
  k8s::WatchOptions options;
  options.timeout = std::chrono::seconds(2);
  auto result = WaitObjectReady(*connection, "ray.io/v1", "RayCluster", "ray", ns, options);
  REQUIRE_FALSE(result);
  INFO(result.error().message);
  CHECK(result.error().kind == core::ErrorKind::kDeadlineExceeded);
  CHECK(result.error().message.find("timed out after 2s waiting for RayCluster " + ns + "/ray") != std::string::npos);
  CHECK(result.error().message.find("state is not set") != std::string::npos);
  CHECK(result.error().message.find(
            "pod ray-head-x7k2p Pending: FailedScheduling: 0/3 nodes are available: 3 Insufficient google.com/tpu.") !=
        std::string::npos);
}

TEST_CASE("the scheduler's events (events.k8s.io/v1: eventTime and series, lastTimestamp null) explain a timeout",
          "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  std::string ns = server.NewNamespace("sched-events");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  REQUIRE(ApplyYaml(*connection, RayClusterYaml("ray", ns) +
                                     "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: ray-tpu-group-worker-4fzkq\n"
                                     "  labels:\n    ray.io/cluster: ray\nspec:\n  containers:\n  - name: ray-worker\n"
                                     "    image: rayproject/ray:2.60.0\n"));
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
  // Read as core/v1, as tputrain reads them: the scheduler's have no lastTimestamp.
  auto listed = server.admin().GetJson("/api/v1/namespaces/" + ns + "/events", "");
  REQUIRE(listed);
  int without_last_timestamp = 0;
  for (const auto& item : (*listed)["items"]) {
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
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  std::string ns = server.NewNamespace("replica-failure");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  REQUIRE(ApplyYaml(*connection, RayClusterYaml("ray", ns)));
  WatchGate gate;
  k8s::WatchOptions options;
  options.timeout = std::chrono::minutes(20);  // submit's default: the failure must not wait for it
  options.on_watch_started = gate.callback();
  auto waiter = std::async(std::launch::async,
                           [&] { return WaitObjectReady(*connection, "ray.io/v1", "RayCluster", "ray", ns, options); });
  REQUIRE(gate.WaitOpened(1));

  // A worker pod the API server refuses: the replica key in labelSelector and matchLabelKeys.
  nlohmann::json term = {
      {"labelSelector",
       {{"matchLabels", {{"ray.io/node-type", "worker"}}},
        {"matchExpressions", {{{"key", "ray.io/worker-group-replica-name"}, {"operator", "Exists"}}}}}},
      {"matchLabelKeys", {"ray.io/worker-group-replica-name"}},
      {"topologyKey", "cloud.google.com/gke-nodepool"}};
  nlohmann::json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", "ray-tpu-group-worker-x7k2p"},
        {"labels",
         {{"ray.io/cluster", "ray"},
          {"ray.io/node-type", "worker"},
          {"ray.io/worker-group-replica-name", "ray-tpu-group-0-abcde"}}}}},
      {"spec",
       {{"containers", {{{"name", "ray-worker"}, {"image", "rayproject/ray:2.60.0"}}}},
        {"affinity", {{"podAffinity", {{"requiredDuringSchedulingIgnoredDuringExecution", {term}}}}}}}}};
  auto refused = server.admin().Send("POST", "/api/v1/namespaces/" + ns + "/pods", pod.dump());
  REQUIRE(refused);
  REQUIRE(refused->status == 422);
  const std::string api_message = nlohmann::json::parse(refused->body)["message"];
  INFO(api_message);
  CHECK(api_message.find("exists in both matchLabelKeys and labelSelector") != std::string::npos);

  // KubeRay's condition: reason FailedCreateWorkerPod, message errors.Join(marker, API error).
  WriteStatus(server.admin(), "/apis/ray.io/v1/namespaces/" + ns + "/rayclusters/ray",
              {{"conditions",
                {{{"type", "ReplicaFailure"},
                  {"status", "True"},
                  {"reason", "FailedCreateWorkerPod"},
                  {"message", "FailedCreateWorkerPod\n" + api_message},
                  {"lastTransitionTime", "2026-11-22T10:00:00Z"}}}}});
  auto result = waiter.get();
  REQUIRE_FALSE(result);
  INFO(result.error().message);
  CHECK(result.error().kind == core::ErrorKind::kFailedPrecondition);
  CHECK(result.error().message ==
        "RayCluster " + ns + "/ray failed: ReplicaFailure: FailedCreateWorkerPod: " + api_message);
  CHECK(result.error().message.find('\n') == std::string::npos);
}

TEST_CASE("readiness of LeaderWorkerSet, JobSet, Deployment and Pod comes from their status", "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  std::string ns = server.NewNamespace("kinds");
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  std::string pod_template = "      spec:\n        containers:\n        - name: main\n          image: busybox\n";
  auto applied =
      ApplyYaml(*connection,
                "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: lws\nspec:\n"
                "  leaderWorkerTemplate:\n    size: 2\n    workerTemplate:\n" +
                    pod_template +
                    "---\napiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: js\nspec:\n"
                    "  replicatedJobs:\n  - name: w\n    replicas: 1\n    template:\n      spec:\n        template:\n"
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
  std::string now = "2026-11-22T10:00:00Z";

  WriteStatus(admin, "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns + "/leaderworkersets/lws",
              {{"conditions",
                {{{"type", "Available"},
                  {"status", "True"},
                  {"reason", "AllGroupsReady"},
                  {"message", "All replicas are ready"},
                  {"lastTransitionTime", now}}}}});
  CHECK(WaitObjectReady(*connection, "leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", "lws", ns, options));

  WriteStatus(admin, "/apis/jobset.x-k8s.io/v1alpha2/namespaces/" + ns + "/jobsets/js",
              {{"conditions",
                {{{"type", "Failed"},
                  {"status", "True"},
                  {"reason", "FailedJobs"},
                  {"message", "jobset failed due to w-0"},
                  {"lastTransitionTime", now}}}}});
  auto jobset = WaitObjectReady(*connection, "jobset.x-k8s.io/v1alpha2", "JobSet", "js", ns, options);
  REQUIRE_FALSE(jobset);
  CHECK(jobset.error().message.find("failed: Failed: FailedJobs: jobset failed due to w-0") != std::string::npos);

  auto deployment = admin.GetJson("/apis/apps/v1/namespaces/" + ns + "/deployments/dep", "");
  REQUIRE(deployment);
  WriteStatus(admin, "/apis/apps/v1/namespaces/" + ns + "/deployments/dep",
              {{"observedGeneration", (*deployment)["metadata"]["generation"]},
               {"replicas", 2},
               {"availableReplicas", 2},
               {"readyReplicas", 2}});
  CHECK(WaitObjectReady(*connection, "apps/v1", "Deployment", "dep", ns, options));

  WriteStatus(admin, "/api/v1/namespaces/" + ns + "/pods/pod",
              {{"phase", "Running"}, {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}});
  CHECK(WaitObjectReady(*connection, "v1", "Pod", "pod", ns, options));
}

TEST_CASE("delete goes in reverse order with foreground propagation, each gone before the next", "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  std::string ns = "del-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 1000000);
  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), "default"));
  std::string yaml = RayClusterYaml("ray", ns) +
                     "---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: ray\n"
                     "  namespace: " +
                     ns + "\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + ns + "\n";
  auto applied = ApplyYaml(*connection, yaml);
  REQUIRE(applied);
  REQUIRE((*applied)[0].object.kind == "Namespace");

  Finalizer finalizer(server.admin(),
                      {"/apis/ray.io/v1/namespaces/" + ns + "/rayclusters/ray",
                       "/api/v1/namespaces/" + ns + "/serviceaccounts/ray", "/api/v1/namespaces/" + ns});
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
