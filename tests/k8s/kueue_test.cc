// Kueue's objects as tputrain renders them (v1beta2 only), the workload side of --queue, and
// Kueue's status read back: positions, quota, checks.
#include "tputrain/k8s/kueue.h"

#include <catch2/catch.hpp>

#include "tputrain/k8s/kueue_status.h"

namespace tputrain::k8s::kueue {
namespace {

using nlohmann::json;

json Node(const std::string& accelerator, const std::string& topology, const std::string& chips) {
  json node = {{"metadata", {{"labels", json::object()}}}, {"status", {{"allocatable", {{"cpu", "32"}}}}}};
  if (!accelerator.empty()) {
    node["metadata"]["labels"]["cloud.google.com/gke-tpu-accelerator"] = accelerator;
    node["metadata"]["labels"]["cloud.google.com/gke-tpu-topology"] = topology;
    node["status"]["allocatable"]["google.com/tpu"] = chips;
  }
  return node;
}

TEST_CASE("TPU shapes of the nodes: grouped by accelerator and topology, chips summed") {
  json list = {
      {"items", json::array({Node("tpu-v6e-slice", "4x4", "4"), Node("", "", ""), Node("tpu-v6e-slice", "4x4", "4"),
                             Node("tpu-v5-lite-podslice", "4x8", "4"), Node("tpu-v6e-slice", "2x4", "not a number")})}};
  auto shapes = TpuShapesOfNodes(list);
  REQUIRE(shapes.size() == 3);
  CHECK(shapes[0].accelerator == "tpu-v5-lite-podslice");
  CHECK(shapes[0].chips == 4);
  CHECK(shapes[1].topology == "2x4");
  CHECK(shapes[1].chips == 0);
  CHECK(shapes[2].topology == "4x4");
  CHECK(shapes[2].chips == 8);
  CHECK(shapes[2].nodes == 2);
  CHECK(TpuShapesOfNodes(json::object()).empty());
}

TEST_CASE("a queue renders v1beta2 objects: flavors per shape, CPU apart, quota, DWS checks per flavor") {
  QueueSpec spec{"team", "ml", {{"tpu-v6e-slice", "4x4", 32, 8}}, false};
  auto plain = RenderQueue(spec);
  std::vector<std::string> kinds;
  for (const auto& object : plain) {
    kinds.push_back(object.kind);
    CHECK(object.api_version == "kueue.x-k8s.io/v1beta2");
    CHECK(object.json["apiVersion"] == "kueue.x-k8s.io/v1beta2");
  }
  CHECK(kinds == std::vector<std::string>{"ResourceFlavor", "ResourceFlavor", "ClusterQueue", "LocalQueue"});
  const auto& flavor = plain[0].json;
  CHECK(flavor["metadata"]["name"] == "team-tpu-v6e-slice-4x4");
  CHECK(flavor["spec"]["nodeLabels"] == json({{"cloud.google.com/gke-tpu-accelerator", "tpu-v6e-slice"},
                                              {"cloud.google.com/gke-tpu-topology", "4x4"}}));
  CHECK(flavor["spec"]["tolerations"][0] ==
        json({{"key", "google.com/tpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}));
  CHECK(plain[1].json["spec"] == json::object());  // CPU pods (a Ray head) go anywhere
  const auto& cq = plain[2].json["spec"];
  CHECK(cq["resourceGroups"][0]["coveredResources"] == json::array({"google.com/tpu"}));
  CHECK(cq["resourceGroups"][0]["flavors"][0]["resources"][0] ==
        json({{"name", "google.com/tpu"}, {"nominalQuota", 32}}));
  CHECK(cq["resourceGroups"][1]["flavors"][0]["name"] == "team-cpu");
  CHECK_FALSE(cq.contains("admissionChecksStrategy"));
  CHECK(plain[3].ns == "ml");
  CHECK(plain[3].json["spec"]["clusterQueue"] == "team");

  spec.provisioning = true;
  auto dws = RenderQueue(spec);
  REQUIRE(dws.size() == 6);
  CHECK(dws[1].kind == "ProvisioningRequestConfig");
  CHECK(dws[1].json["spec"]["provisioningClassName"] == "queued-provisioning.gke.io");
  CHECK(dws[1].json["spec"]["managedResources"] == json::array({"google.com/tpu"}));
  CHECK(dws[1].json["spec"]["parameters"]["tpu-topology"] == "4x4");
  CHECK(dws[2].kind == "AdmissionCheck");
  CHECK(dws[2].json["spec"]["controllerName"] == "kueue.x-k8s.io/provisioning-request");
  CHECK(dws[2].json["spec"]["parameters"]["name"] == "team-tpu-v6e-slice-4x4-dws");
  // v1beta2 attaches checks only through admissionChecksStrategy.
  CHECK(dws[4].json["spec"]["admissionChecksStrategy"]["admissionChecks"][0] ==
        json({{"name", "team-tpu-v6e-slice-4x4-dws"}, {"onFlavors", json::array({"team-tpu-v6e-slice-4x4"})}}));
  CHECK_FALSE(dws[4].json["spec"].contains("admissionChecks"));
}

TEST_CASE("queue names are DNS labels short enough for the names made from them") {
  CHECK(ValidateQueueName("queue", "team-a"));
  CHECK_FALSE(ValidateQueueName("queue", "Team_A"));
  auto too_long = ValidateQueueName("--queue", std::string(41, 'a'));
  REQUIRE_FALSE(too_long);
  CHECK(too_long.error().message.find("--queue: at most 40 characters") == 0);
}

Object Workload(const std::string& yaml_kind, json spec) {
  Object object;
  object.api_version = yaml_kind == "JobSet" ? "jobset.x-k8s.io/v1alpha2" : "v1";
  object.kind = yaml_kind;
  object.name = "w";
  object.json = {{"apiVersion", object.api_version},
                 {"kind", yaml_kind},
                 {"metadata", {{"name", "w"}}},
                 {"spec", std::move(spec)}};
  return object;
}

TEST_CASE("--queue labels the workloads; on a provisioning queue their TPU pods select GKE's queued nodes") {
  json pod = {{"nodeSelector", {{"cloud.google.com/gke-tpu-accelerator", "tpu-v6e-slice"}}}};
  json jobset = {{"replicatedJobs", json::array({{{"template", {{"spec", {{"template", {{"spec", pod}}}}}}}}})}};
  std::vector<Object> objects = {Workload("JobSet", jobset), Workload("ConfigMap", json::object())};
  auto labelled = LabelForQueue(objects, {"team", false});
  REQUIRE(labelled);
  CHECK(*labelled == 1);
  CHECK(objects[0].json["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team");
  CHECK_FALSE(objects[0].json["metadata"].contains("annotations"));
  CHECK_FALSE(objects[1].json["metadata"].contains("labels"));

  QueueLabelling dws{"dws", true, std::chrono::hours(2)};
  REQUIRE(LabelForQueue(objects, dws));
  REQUIRE(LabelForQueue(objects, dws));  // twice: no second toleration
  CHECK(objects[0].json["metadata"]["annotations"]["provreq.kueue.x-k8s.io/maxRunDurationSeconds"] == "7200");
  const auto& spec = objects[0].json["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"];
  CHECK(spec["nodeSelector"]["cloud.google.com/gke-queued"] == "true");
  REQUIRE(spec["tolerations"].size() == 1);
  CHECK(spec["tolerations"][0] == json({{"key", "cloud.google.com/gke-queued"},
                                        {"operator", "Equal"},
                                        {"value", "true"},
                                        {"effect", "NoSchedule"}}));

  std::vector<Object> none = {Workload("ConfigMap", json::object())};
  auto refused = LabelForQueue(none, {"team", false});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("--queue: nothing here waits in a Kueue queue") == 0);
}

json WorkloadJson(const std::string& name, int64_t priority, const std::string& created, json conditions,
                  const std::string& queue = "team") {
  return {{"metadata",
           {{"name", name},
            {"namespace", "ml"},
            {"creationTimestamp", created},
            {"ownerReferences", json::array({{{"kind", "JobSet"}, {"name", name}, {"controller", true}}})}}},
          {"spec", {{"queueName", queue}, {"priority", priority}}},
          {"status", {{"conditions", conditions}}}};
}

json Condition(const std::string& type, const std::string& status, const std::string& message = "",
               const std::string& since = "2026-11-28T10:00:00Z") {
  return {{"type", type}, {"status", status}, {"reason", "R"}, {"message", message}, {"lastTransitionTime", since}};
}

TEST_CASE("workloads read back: phase, Kueue's message, checks; positions by priority, then arrival") {
  const std::string insufficient =
      "couldn't assign flavors to pod set slice: insufficient unused quota for google.com/tpu in flavor f, 16 more "
      "needed";
  std::vector<WorkloadStatus> all = {
      ParseWorkload(WorkloadJson("a", 0, "2026-11-28T09:00:00Z",
                                 json::array({Condition("QuotaReserved", "True"), Condition("Admitted", "True")}))),
      ParseWorkload(WorkloadJson("b", 0, "2026-11-28T09:01:00Z",
                                 json::array({Condition("QuotaReserved", "False", insufficient)}))),
      ParseWorkload(WorkloadJson("c", 0, "2026-11-28T09:02:00Z", json::array())),
      ParseWorkload(WorkloadJson("urgent", 100, "2026-11-28T09:03:00Z", json::array())),
      ParseWorkload(WorkloadJson("evicted", 0, "2026-11-28T08:00:00Z",
                                 json::array({Condition("Evicted", "True", "", "2026-11-28T09:05:00Z")}))),
      ParseWorkload(
          WorkloadJson("done", 0, "2026-11-28T07:00:00Z", json::array({Condition("Finished", "True", "ok")}))),
  };
  for (auto& workload : all) workload.cluster_queue = "team";
  AssignPositions(all);
  CHECK(all[0].phase == WorkloadPhase::kAdmitted);
  CHECK(all[0].position == 0);
  CHECK(all[1].phase == WorkloadPhase::kPending);
  CHECK(all[1].message == insufficient);
  CHECK(all[3].position == 1);  // higher priority first
  CHECK(all[1].position == 2);
  CHECK(all[2].position == 3);
  CHECK(all[4].position == 4);  // rejoined the queue when evicted
  CHECK(all[5].phase == WorkloadPhase::kFinished);
  CHECK(all[5].message == "ok");
  CHECK(all[1].owner_kind == "JobSet");

  json checked = WorkloadJson("d", 0, "2026-11-28T09:00:00Z", json::array({Condition("QuotaReserved", "True")}));
  checked["status"]["admission"] = {
      {"clusterQueue", "dws"},
      {"podSetAssignments", json::array({{{"flavors", {{"google.com/tpu", "dws-tpu"}, {"cpu", "dws-cpu"}}}}})}};
  checked["status"]["admissionChecks"] =
      json::array({{{"name", "dws-tpu-dws"}, {"state", "Retry"}, {"message", "Retrying after failure: x"}}});
  auto status = ParseWorkload(checked);
  CHECK(status.phase == WorkloadPhase::kQuotaReserved);
  CHECK(status.cluster_queue == "dws");
  CHECK(status.flavors == std::vector<std::string>{"dws-cpu", "dws-tpu"});
  REQUIRE(status.checks.size() == 1);
  CHECK(status.checks[0].state == "Retry");
  // Fields of the wrong type or null read as absent.
  auto odd = ParseWorkload(json{{"metadata", {{"name", nullptr}}}, {"status", {{"conditions", "x"}}}});
  CHECK(odd.phase == WorkloadPhase::kPending);
}

TEST_CASE("a LeaderWorkerSet group's Workload is the set's, not its pods'") {
  // As Kueue makes it: owned by the set (not as controller) and, once the group's pods exist, by
  // each pod; the set named in the job-owner annotations.
  json group = WorkloadJson("leaderworkerset-serve-0-fee10", 0, "2026-11-28T09:00:00Z", json::array());
  group["metadata"]["ownerReferences"] = json::array({{{"kind", "LeaderWorkerSet"}, {"name", "serve"}},
                                                      {{"kind", "Pod"}, {"name", "serve-0"}},
                                                      {{"kind", "Pod"}, {"name", "serve-0-1"}}});
  group["metadata"]["annotations"] = {
      {"kueue.x-k8s.io/job-owner-gvk", "leaderworkerset.x-k8s.io/v1, Kind=LeaderWorkerSet"},
      {"kueue.x-k8s.io/job-owner-name", "serve"}};
  auto status = ParseWorkload(group);
  CHECK(status.owner_kind == "LeaderWorkerSet");
  CHECK(status.owner_name == "serve");
  // Without the annotations: the first owner that is not a pod.
  group["metadata"].erase("annotations");
  std::swap(group["metadata"]["ownerReferences"][0], group["metadata"]["ownerReferences"][1]);
  status = ParseWorkload(group);
  CHECK(status.owner_kind == "LeaderWorkerSet");
  CHECK(status.owner_name == "serve");
}

TEST_CASE("a ClusterQueue's quota: nominal and reserved per flavor and resource; inactive says why") {
  json cq = {
      {"metadata", {{"name", "team"}}},
      {"spec",
       {{"resourceGroups",
         json::array({{{"flavors", json::array({{{"name", "f"},
                                                 {"resources", json::array({{{"name", "google.com/tpu"},
                                                                             {"nominalQuota", 16}}})}}})}}})},
        {"admissionChecksStrategy", {{"admissionChecks", json::array({{{"name", "c"}}})}}}}},
      {"status",
       {{"pendingWorkloads", 2},
        {"flavorsReservation",
         json::array({{{"name", "f"}, {"resources", json::array({{{"name", "google.com/tpu"}, {"total", "16"}}})}}})},
        {"conditions", json::array({Condition("Active", "False", "flavor f not found")})}}}};
  auto status = ParseClusterQueue(cq);
  REQUIRE(status.quota.size() == 1);
  CHECK(status.quota[0].nominal == "16");
  CHECK(status.quota[0].reserved == "16");
  CHECK(status.checks == std::vector<std::string>{"c"});
  CHECK(status.pending == 2);
  CHECK_FALSE(status.active);
  CHECK(status.inactive_message == "flavor f not found");
}

}  // namespace
}  // namespace tputrain::k8s::kueue
