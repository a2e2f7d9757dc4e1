#include "tputrain/k8s/readiness.h"

#include <catch2/catch.hpp>

namespace tputrain::k8s {
namespace {

using State = Verdict::State;

TEST_CASE("a serving JobSet is ready when every child Job has its pods ready; Completed and Failed still count") {
  nlohmann::json jobset = nlohmann::json::parse(R"({
    "spec": {"replicatedJobs": [{"name": "sax-model-server", "replicas": 2}]},
    "status": {"replicatedJobsStatus": [{"name": "sax-model-server", "ready": 1, "active": 2}]}
  })");
  auto waiting = ReadyVerdict("JobSet", &jobset);
  CHECK(waiting.state == State::kWaiting);
  CHECK(waiting.detail == "1/2 jobs with every pod ready");
  jobset["status"]["replicatedJobsStatus"][0]["ready"] = 2;
  CHECK(ReadyVerdict("JobSet", &jobset).state == State::kDone);

  nlohmann::json failed = jobset;
  failed["status"]["conditions"] = {{{"type", "Failed"}, {"status", "True"}, {"message", "w-0 failed"}}};
  CHECK(ReadyVerdict("JobSet", &failed).state == State::kFailed);
  nlohmann::json training = nlohmann::json::parse(R"({
    "spec": {"replicatedJobs": [{"replicas": 1}]},
    "status": {"conditions": [{"type": "Completed", "status": "True"}]}
  })");
  CHECK(ReadyVerdict("JobSet", &training).state == State::kDone);
}

TEST_CASE("a RayCluster whose pods KubeRay cannot create (ReplicaFailure=True) has failed, whatever its state") {
  nlohmann::json cluster = nlohmann::json::parse(R"({
    "metadata": {"generation": 1},
    "status": {"conditions": [{"type": "ReplicaFailure", "status": "True", "reason": "FailedCreateWorkerPod",
                               "message": "FailedCreateWorkerPod\nPod \"w\" is invalid: spec.affinity: bad"}]}
  })");
  auto failed = ReadyVerdict("RayCluster", &cluster);
  CHECK(failed.state == State::kFailed);
  CHECK(failed.detail == "ReplicaFailure: FailedCreateWorkerPod: Pod \"w\" is invalid: spec.affinity: bad");
  // Cleared (KubeRay removes it once a reconcile succeeds) or False: the state decides.
  cluster["status"]["conditions"][0]["status"] = "False";
  cluster["status"]["state"] = "ready";
  CHECK(ReadyVerdict("RayCluster", &cluster).state == State::kDone);
}

TEST_CASE("a LoadBalancer Service is ready once it has an ingress address; other Services at once") {
  nlohmann::json service = {{"spec", {{"type", "LoadBalancer"}}},
                            {"status", {{"loadBalancer", nlohmann::json::object()}}}};
  CHECK(ReadyVerdict("Service", &service).state == State::kWaiting);
  service["status"]["loadBalancer"]["ingress"] = {{{"ip", "34.1.2.3"}}};
  CHECK(ReadyVerdict("Service", &service).state == State::kDone);
  nlohmann::json cluster_ip = {{"spec", {{"type", "ClusterIP"}}}};
  CHECK(ReadyVerdict("Service", &cluster_ip).state == State::kDone);
}

}  // namespace
}  // namespace tputrain::k8s
