// tputrain queue ... and --queue against the real Kueue manager (v0.17.1, scripts/peers/k8s.sh) on
// the real control plane: the scheduler, the JobSet, KubeRay and LeaderWorkerSet controllers, kwok
// as the TPU nodes' kubelet. Kueue admits, holds and releases the workloads; the test plays only
// the containers (it ends pods) and, where GKE's autoscaler would answer a ProvisioningRequest,
// nothing: that path goes as far as a control plane without it goes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <thread>

#include "k8s/control_plane.h"
#include "k8s/emulated_gke.h"
#include "k8s/k8s_test_util.h"
#include "k8s/kwok_nodes.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

using nlohmann::json;

ControlPlane& QueuePlane() {
  ControlPlaneOptions options;
  options.pod_end = PodEnd::kRunForever;  // a slice's pods run until the test ends them
  options.kuberay = options.lws = options.jobset = options.kueue = true;
  auto& plane = ControlPlane::Shared(options);
  AddNodePool(plane.server().admin(), CpuPool());
  return plane;
}

struct Cli {
  ControlPlane& plane;
  std::string ns;
  std::string kubeconfig;
  std::string state;

  Cli(ControlPlane& p, const std::string& prefix) : plane(p), ns(p.server().NewNamespace(prefix)) {
    kubeconfig = plane.server().WriteKubeconfig("queue-" + ns, plane.server().admin_token(), ns);
    state = plane.server().dir() + "/state-" + ns;
  }
  ProcessResult Run(std::vector<std::string> args, const std::string& stdin_text = "") const {
    ProcessOptions options;
    options.argv = {TputrainBinary()};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.env = {{"KUBECONFIG", kubeconfig}, {"XDG_STATE_HOME", state}, {"TPUTRAIN_RUN", std::nullopt}};
    options.stdin_text = stdin_text;
    return RunProcess(options, std::chrono::seconds(300));
  }
  json Json(std::vector<std::string> args) const {
    args.insert(args.end(), {"--format", "json"});
    auto result = Run(args);
    INFO(result.out << result.err);
    REQUIRE(result.exit_code == 0);
    return json::parse(result.out);
  }
  // `queue status WORKLOAD` until `done` holds for its reports, one per Kueue Workload (Kueue acts
  // in its own time).
  json ReportsUntil(const std::string& workload, const std::function<bool(const json&)>& done) const {
    json last;
    bool reached = WaitFor(
        [&] {
          auto result = Run({"queue", "status", workload, "--format", "json"});
          if (result.exit_code != 0) return false;
          last = json::parse(result.out);
          return done(last);
        },
        std::chrono::seconds(120));
    INFO(last.dump(2) << "\n" << plane.Logs());
    REQUIRE(reached);
    return last;
  }
  json StatusUntil(const std::string& workload, const std::function<bool(const json&)>& done) const {
    return ReportsUntil(workload, [&](const json& reports) { return done(reports.at(0)); }).at(0);
  }
  std::vector<std::string> Pods(const std::string& selector) const {
    std::vector<std::string> names;
    auto pods = plane.server().admin().GetJson(
        "/api/v1/namespaces/" + ns + "/pods?labelSelector=" + http::UrlEncode(selector), "pods");
    for (const auto& pod : (*pods)["items"]) {
      if (!pod["spec"].value("nodeName", "").empty()) names.push_back(pod["metadata"]["name"]);
    }
    return names;
  }
};

// One Job of four pods, each a host of a v6e 4x4 slice (4 chips), the slice kept on one pool.
std::string SliceJobSet(const std::string& name) {
  return "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: " + name +
         "\n  annotations:\n    alpha.jobset.sigs.k8s.io/exclusive-topology: cloud.google.com/gke-nodepool\n"
         "spec:\n  replicatedJobs:\n  - name: slice\n    replicas: 1\n    template:\n      spec:\n"
         "        parallelism: 4\n        completions: 4\n        backoffLimit: 0\n        template:\n"
         "          spec:\n            restartPolicy: Never\n            nodeSelector:\n"
         "              cloud.google.com/gke-tpu-accelerator: tpu-v6e-slice\n"
         "              cloud.google.com/gke-tpu-topology: 4x4\n            tolerations:\n"
         "            - {key: google.com/tpu, operator: Exists, effect: NoSchedule}\n            containers:\n"
         "            - name: train\n              image: us-docker.pkg.dev/example/maxtext:latest\n"
         "              resources:\n                requests: {google.com/tpu: \"4\", cpu: \"1\"}\n"
         "                limits: {google.com/tpu: \"4\"}\n";
}

const json* Quota(const json& report, const std::string& resource) {
  for (const auto& item : report["quota"]) {
    if (item["resource"] == resource) return &item;
  }
  return nullptr;
}

TEST_CASE("queue create on the real Kueue: flavors from the TPU pools; two JobSets for one slice take turns",
          "[integration]") {
  auto& plane = QueuePlane();
  auto& admin = plane.server().admin();
  AddNodePool(admin, V6eSlicePool("test", "v6e-4x4-a"));
  Cli cli(plane, "turns");

  // Kueue is the cluster's own (the control plane's): found, never recorded as the run's.
  auto created = cli.Json({"queue", "create", "team", "--run", "q1"});
  CHECK(created["kueue"] == "found");
  REQUIRE(created["flavors"].size() == 1);
  CHECK(created["flavors"][0] == json({{"accelerator", "tpu-v6e-slice"},
                                       {"topology", "4x4"},
                                       {"chips", 16},
                                       {"flavor", "team-tpu-v6e-slice-4x4"}}));
  auto flavor = admin.GetJson("/apis/kueue.x-k8s.io/v1beta2/resourceflavors/team-tpu-v6e-slice-4x4", "");
  REQUIRE(flavor);
  CHECK((*flavor)["spec"]["nodeLabels"]["cloud.google.com/gke-tpu-topology"] == "4x4");
  // Kueue took it: the ClusterQueue is active once its flavors are there.
  auto listed = cli.Json({"queue", "list"});
  REQUIRE(listed.size() == 1);
  CHECK(listed[0]["cluster_queue"] == "team");

  auto first = cli.Run({"apply", "--queue", "team", "-f", "-"}, SliceJobSet("train-a"));
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  auto admitted = cli.Run({"queue", "wait", "jobset/train-a", "--timeout", "120s", "--format", "json"});
  INFO(admitted.out << admitted.err << plane.Logs());
  REQUIRE(admitted.exit_code == 0);
  CHECK(json::parse(admitted.out)[0]["admitted"] == true);
  REQUIRE(WaitFor([&] { return cli.Pods("jobset.sigs.k8s.io/jobset-name=train-a").size() == 4; },
                  std::chrono::seconds(120)));

  // The second waits: first in line, the slice's 16 chips all in use, Kueue saying so.
  REQUIRE(cli.Run({"apply", "--queue", "team", "-f", "-"}, SliceJobSet("train-b")).exit_code == 0);
  // Kueue reports the cluster queue's usage on its own time: read once it has caught up.
  auto waiting = cli.StatusUntil("jobset/train-b", [](const json& r) {
    const json* tpu = Quota(r, "google.com/tpu");
    return !r["message"].get<std::string>().empty() && tpu != nullptr && (*tpu)["used"] == "16";
  });
  // Kueue queues by creation time, which the API server keeps to the second: made in the same
  // second, the two workloads tie and Kueue may admit the third first (it did, once, in a full
  // run). The third is made in a later second.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  REQUIRE(cli.Run({"apply", "--queue", "team", "-f", "-"}, SliceJobSet("train-c")).exit_code == 0);
  CHECK(waiting["state"] == "pending");
  CHECK(waiting["admitted"] == false);
  CHECK(waiting["position"] == 1);
  const json* tpu = Quota(waiting, "google.com/tpu");
  REQUIRE(tpu != nullptr);
  CHECK((*tpu)["used"] == "16");
  CHECK((*tpu)["nominal"] == "16");
  CHECK(waiting["message"].get<std::string>().find("google.com/tpu") != std::string::npos);
  CHECK(waiting["summary"].get<std::string>().find("position 1 in cluster queue team") != std::string::npos);
  auto third = cli.StatusUntil("jobset/train-c", [](const json& r) { return r["position"] == 2; });
  CHECK(third["state"] == "pending");
  CHECK(cli.Pods("jobset.sigs.k8s.io/jobset-name=train-b").empty());
  auto table = cli.Run({"queue", "status"});
  CHECK(table.out.find("JobSet/train-b (team): pending: position 1 in cluster queue team") != std::string::npos);

  // The first slice's hosts exit: its JobSet completes, Kueue releases the quota, the second runs.
  for (const auto& pod : cli.Pods("jobset.sigs.k8s.io/jobset-name=train-a")) plane.EndPod(cli.ns, pod, 0);
  auto next = cli.Run({"queue", "wait", "jobset/train-b", "--timeout", "180s", "--format", "json"});
  INFO(next.out << next.err << plane.Logs());
  REQUIRE(next.exit_code == 0);
  REQUIRE(WaitFor([&] { return cli.Pods("jobset.sigs.k8s.io/jobset-name=train-b").size() == 4; },
                  std::chrono::seconds(120)));
  auto moved_up = cli.StatusUntil("jobset/train-c", [](const json& r) { return r["position"] == 1; });
  CHECK(moved_up["state"] == "pending");
  auto finished = cli.Json({"queue", "status", "jobset/train-a"});
  CHECK(finished[0]["state"] == "finished");

  // A workload that is no one's: one line, exit 1.
  auto missing = cli.Run({"queue", "status", "jobset/none"});
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.find("no Kueue workload for jobset/none") != std::string::npos);

  // queue delete: the run's objects go, Kueue (found) stays.
  for (const auto& name : {"train-b", "train-c", "train-a"}) {
    auto deleted = cli.Run({"delete", "-f", "-", "--yes", "--timeout", "120s"}, SliceJobSet(name));
    INFO(deleted.err);
    CHECK(deleted.exit_code == 0);
  }
  auto gone = cli.Json({"queue", "delete", "team", "--run", "q1", "--timeout", "120s"});
  CHECK(gone["deleted"].size() == 4);  // LocalQueue, ClusterQueue, two flavors
  CHECK(admin.Send("GET", "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/team")->status == 404);
  CHECK(admin.Send("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusterqueues.kueue.x-k8s.io")
            ->status == 200);
}

// A LeaderWorkerSet of `replicas` groups of four hosts, each group a v6e 4x4 slice (16 chips), no
// leader template: Kueue makes one Workload per group, of one pod set.
std::string SliceLeaderWorkerSet(const std::string& name, int replicas) {
  return "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: " + name +
         "\nspec:\n  replicas: " + std::to_string(replicas) +
         "\n  leaderWorkerTemplate:\n    size: 4\n    workerTemplate:\n      spec:\n        nodeSelector:\n"
         "          cloud.google.com/gke-tpu-accelerator: tpu-v6e-slice\n"
         "          cloud.google.com/gke-tpu-topology: 4x4\n        tolerations:\n"
         "        - {key: google.com/tpu, operator: Exists, effect: NoSchedule}\n        containers:\n"
         "        - name: serve\n          image: us-docker.pkg.dev/example/jetstream:latest\n"
         "          resources: {requests: {google.com/tpu: \"4\"}, limits: {google.com/tpu: \"4\"}}\n";
}

size_t CountIf(const json& reports, const std::function<bool(const json&)>& test) {
  return std::count_if(reports.begin(), reports.end(), test);
}

TEST_CASE("a RayJob and a LeaderWorkerSet through one queue: each waits for the chips, runs once Kueue admits it",
          "[integration]") {
  auto& plane = QueuePlane();
  auto& admin = plane.server().admin();
  AddNodePool(admin, V6eSlicePool("test", "v6e-4x4-a"));
  AddNodePool(admin, V6eSlicePool("test", "v6e-4x4-b"));
  Cli cli(plane, "rayjob");
  auto created = cli.Json({"queue", "create", "shared", "--tpu-type", "v6e-16", "--run", "q2"});
  REQUIRE(created["flavors"].size() == 1);
  CHECK(created["flavors"][0]["chips"] == 32);  // two v6e-16 slices' nodes

  // KubeRay makes the RayCluster once Kueue admits the RayJob; Kueue puts its flavor's node labels
  // and toleration on the pods.
  const std::string rayjob =
      "apiVersion: ray.io/v1\nkind: RayJob\nmetadata:\n  name: tune\nspec:\n  entrypoint: python -c 'print(1)'\n"
      "  shutdownAfterJobFinishes: true\n  rayClusterSpec:\n    headGroupSpec:\n      rayStartParams: {}\n"
      "      template:\n        spec:\n          containers:\n          - name: ray-head\n"
      "            image: rayproject/ray:2.60.0\n            resources: {requests: {cpu: \"1\", memory: 2Gi}}\n"
      "    workerGroupSpecs:\n    - groupName: tpu\n      replicas: 1\n      minReplicas: 1\n      maxReplicas: 1\n"
      "      numOfHosts: 4\n      rayStartParams: {}\n      template:\n        spec:\n          nodeSelector:\n"
      "            cloud.google.com/gke-tpu-accelerator: tpu-v6e-slice\n"
      "            cloud.google.com/gke-tpu-topology: 4x4\n          containers:\n          - name: ray-worker\n"
      "            image: rayproject/ray:2.60.0\n"
      "            resources: {requests: {google.com/tpu: \"4\"}, limits: {google.com/tpu: \"4\"}}\n";
  auto applied = cli.Run({"apply", "--queue", "shared", "-f", "-"}, rayjob);
  INFO(applied.err);
  REQUIRE(applied.exit_code == 0);
  auto admitted = cli.Run({"queue", "wait", "rayjob/tune", "--timeout", "180s", "--format", "json"});
  INFO(admitted.out << admitted.err << plane.Logs());
  REQUIRE(admitted.exit_code == 0);
  auto flavors = json::parse(admitted.out)[0]["flavors"].get<std::set<std::string>>();
  CHECK(flavors == std::set<std::string>{"shared-tpu-v6e-slice-4x4", "shared-cpu"});
  REQUIRE(WaitFor([&] { return cli.Pods("ray.io/node-type=worker").size() == 4; }, std::chrono::seconds(180)));
  // On the flavor's nodes (this RayJob carries no slice placement rule of its own, as
  // raycluster-maxtext does, so which pools is the scheduler's choice).
  for (const auto& placed : PodPlacements(admin, cli.ns, "ray.io/node-type=worker")) {
    CHECK(placed.pool.rfind("v6e-4x4-", 0) == 0);
  }

  // A LeaderWorkerSet of two slices through the same queue, the RayJob holding 16 of its 32 chips:
  // Kueue admits one group (a Workload per group) and holds the other, first in line.
  const std::string lws = SliceLeaderWorkerSet("serve", 2);
  auto served = cli.Run({"apply", "--queue", "shared", "-f", "-"}, lws);
  INFO(served.err);
  REQUIRE(served.exit_code == 0);
  // (Kueue writes the ClusterQueue's usage in its own time, after the admissions.)
  auto split = cli.ReportsUntil("leaderworkerset/serve", [](const json& reports) {
    return reports.size() == 2 && CountIf(reports, [](const json& r) { return r["admitted"] == true; }) == 1 &&
           CountIf(reports, [](const json& r) { return !r["message"].get<std::string>().empty(); }) == 2 &&
           CountIf(reports, [](const json& r) {
             const json* tpu = Quota(r, "google.com/tpu");
             return tpu != nullptr && (*tpu)["used"] == "32";
           }) == 2;
  });
  for (const auto& report : split) {
    CHECK(report["kind"] == "LeaderWorkerSet");
    CHECK(report["name"] == "serve");
    if (report["admitted"] == true) continue;
    CHECK(report["state"] == "pending");
    CHECK(report["position"] == 1);
    const json* tpu = Quota(report, "google.com/tpu");
    REQUIRE(tpu != nullptr);
    CHECK((*tpu)["used"] == "32");
    CHECK((*tpu)["nominal"] == "32");
  }
  const std::string group_pods = "leaderworkerset.sigs.k8s.io/name=serve";
  REQUIRE(WaitFor([&] { return cli.Pods(group_pods).size() == 4; }, std::chrono::seconds(120)));

  // The RayJob goes: its chips come back to the queue, the second group is admitted and placed.
  CHECK(cli.Run({"delete", "-f", "-", "--yes", "--timeout", "120s"}, rayjob).exit_code == 0);
  auto both = cli.Run({"queue", "wait", "lws/serve", "--timeout", "180s", "--format", "json"});
  INFO(both.out << both.err << plane.Logs());
  REQUIRE(both.exit_code == 0);
  CHECK(json::parse(both.out)[0]["admitted"] == true);  // the group furthest behind
  auto admitted_groups = cli.Json({"queue", "status", "lws/serve"});
  CHECK(CountIf(admitted_groups, [](const json& r) { return r["admitted"] == true; }) == 2);
  REQUIRE(WaitFor([&] { return cli.Pods(group_pods).size() == 8; }, std::chrono::seconds(180)));
  for (const auto& placed : PodPlacements(admin, cli.ns, group_pods)) {
    CHECK(placed.pool.rfind("v6e-4x4-", 0) == 0);
  }

  CHECK(cli.Run({"delete", "-f", "-", "--yes", "--timeout", "120s"}, lws).exit_code == 0);
  CHECK(cli.Run({"queue", "delete", "shared", "--run", "q2", "--timeout", "120s"}).exit_code == 0);
  RemoveNodePools(admin, "test", {"cpu-pool"});
}

TEST_CASE("queue create --flex-start: ProvisioningRequest objects Kueue takes, the workload held by the check",
          "[integration]") {
  auto& plane = QueuePlane();
  auto& admin = plane.server().admin();
  RemoveNodePools(admin, "test", {"cpu-pool"});
  Cli cli(plane, "dws");
  // Flex-start pools have no nodes until GKE provisions them: the shape and quota are said.
  auto no_chips = cli.Run({"queue", "create", "dws", "--tpu-type", "v6e-16", "--flex-start"});
  CHECK(no_chips.exit_code == 2);
  CHECK(no_chips.err.find("--chips: the cluster has no v6e-16 nodes") != std::string::npos);
  auto created = cli.Json({"queue", "create", "dws", "--tpu-type", "v6e-16", "--chips", "16", "--flex-start"});
  std::vector<std::string> kinds;
  for (const auto& applied : created["applied"]) kinds.push_back(applied["kind"]);
  CHECK(kinds == std::vector<std::string>{"ResourceFlavor", "ProvisioningRequestConfig", "AdmissionCheck",
                                          "ResourceFlavor", "ClusterQueue", "LocalQueue"});
  // Kueue's provisioning controller takes the check (it is active once the config is found).
  const std::string check = "/apis/kueue.x-k8s.io/v1beta2/admissionchecks/dws-tpu-v6e-slice-4x4-dws";
  REQUIRE(WaitFor(
      [&] {
        auto read = admin.GetJson(check, "");
        if (!read) return false;
        // (no status at all until Kueue's controller first writes it)
        for (const auto& condition : read->value("status", json::object()).value("conditions", json::array())) {
          if (condition["type"] == "Active" && condition["status"] == "True") return true;
        }
        return false;
      },
      std::chrono::seconds(60)));

  // --queue on a provisioning queue: labelled, annotated, and the TPU pods select and tolerate
  // GKE's queued-provisioning nodes.
  REQUIRE(cli.Run({"apply", "--queue", "dws", "-f", "-"}, SliceJobSet("flex")).exit_code == 0);
  auto jobset = admin.GetJson("/apis/jobset.x-k8s.io/v1alpha2/namespaces/" + cli.ns + "/jobsets/flex", "");
  REQUIRE(jobset);
  CHECK((*jobset)["metadata"]["annotations"]["provreq.kueue.x-k8s.io/maxRunDurationSeconds"] == "604800");
  const auto& pod_spec = (*jobset)["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"];
  CHECK(pod_spec["nodeSelector"]["cloud.google.com/gke-queued"] == "true");
  CHECK(pod_spec["tolerations"].dump().find("cloud.google.com/gke-queued") != std::string::npos);

  // Quota reserved, the check pending on Kueue's ProvisioningRequest, which only GKE's autoscaler
  // answers: the JobSet stays suspended, no pod is made.
  auto held = cli.StatusUntil("jobset/flex", [](const json& r) { return !r["provisioning_requests"].empty(); });
  CHECK(held["state"] == "quota reserved");
  CHECK(held["admitted"] == false);
  REQUIRE(held["admission_checks"].size() == 1);
  CHECK(held["admission_checks"][0]["name"] == "dws-tpu-v6e-slice-4x4-dws");
  CHECK(held["admission_checks"][0]["state"] == "Pending");
  const std::string request = held["provisioning_requests"][0]["name"];
  auto provreq =
      admin.GetJson("/apis/autoscaling.x-k8s.io/v1/namespaces/" + cli.ns + "/provisioningrequests/" + request, "");
  REQUIRE(provreq);
  CHECK((*provreq)["spec"]["provisioningClassName"] == "queued-provisioning.gke.io");
  CHECK((*provreq)["spec"]["parameters"]["tpu-topology"] == "4x4");
  CHECK((*provreq)["spec"]["parameters"]["maxRunDurationSeconds"] == "604800");
  CHECK(held["summary"].get<std::string>().find("ProvisioningRequest " + request + ": no conditions yet") !=
        std::string::npos);
  CHECK(admin.GetJson("/apis/jobset.x-k8s.io/v1alpha2/namespaces/" + cli.ns + "/jobsets/flex", "")
            ->at("spec")
            .value("suspend", false));
  CHECK(cli.Pods("jobset.sigs.k8s.io/jobset-name=flex").empty());

  // PLAYED (GKE's autoscaler, see PLAYED.md): it answers that it cannot provision. Kueue retries
  // the check, and the status says so with the autoscaler's words.
  WriteStatus(admin, "/apis/autoscaling.x-k8s.io/v1/namespaces/" + cli.ns + "/provisioningrequests/" + request,
              {{"conditions", json::array({{{"type", "Failed"},
                                            {"status", "True"},
                                            {"reason", "NotProvisioned"},
                                            {"message", "no v6e capacity in us-east5-b"},
                                            {"lastTransitionTime", "2026-11-28T00:00:00Z"}}})}});
  auto retried = cli.StatusUntil("jobset/flex", [](const json& r) {
    return r["summary"].get<std::string>().find("Retrying after failure: no v6e capacity") != std::string::npos;
  });
  CHECK(retried["admitted"] == false);
  CHECK(retried["summary"].get<std::string>().find("Failed=True") != std::string::npos);

  // The delete waits for the JobSet's dependents: the Workload, whose finalizer Kueue removes
  // once its provisioning controller, retrying a conflict on the request's PodTemplate with
  // growing pauses, gets to it. Twice in this sitting's runs that took over 120 s.
  auto deleted = cli.Run({"delete", "-f", "-", "--yes", "--timeout", "300s"}, SliceJobSet("flex"));
  INFO(deleted.out << deleted.err << plane.Logs());
  CHECK(deleted.exit_code == 0);
  auto gone = cli.Json({"queue", "delete", "dws", "--timeout", "300s"});
  CHECK(gone["deleted"].size() == 6);
}

TEST_CASE("queue create --flex-start --create-nodepool: GKE's refusal of queued provisioning for TPUs, in its words",
          "[integration]") {
  auto& plane = QueuePlane();
  EmulatedGke gke(plane);
  auto cluster = gke.Tputrain({"cluster", "create", "shared", "--location", "us-east5-b", "--machine-type",
                               "n1-standard-16", "--run", "dws-pool"});
  INFO(cluster.err);
  REQUIRE(cluster.exit_code == 0);
  auto refused =
      gke.Tputrain({"queue", "create", "dws-pool", "--flex-start", "--tpu-type", "v6e-16", "--create-nodepool",
                    "dws-v6e", "--cluster", "shared", "--location", "us-east5-b", "--run", "dws-pool"});
  INFO(refused.err);
  CHECK(refused.exit_code == 1);
  CHECK(refused.err.find("GKE refuses a flex-start node pool with queued provisioning for v6e-16") !=
        std::string::npos);
  CHECK(refused.err.find("Flex start node pools don't support TPUs with queued provisioning.") != std::string::npos);
  // Refused before anything of the queue was made.
  CHECK(plane.server().admin().Send("GET", "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/dws-pool")->status == 404);
  auto usage = gke.Tputrain({"queue", "create", "dws-pool", "--tpu-type", "v6e-16", "--create-nodepool", "p",
                             "--cluster", "shared", "--location", "us-east5-b"});
  CHECK(usage.exit_code == 2);
  CHECK(usage.err.find("--create-nodepool: needs --flex-start") != std::string::npos);
}

}  // namespace
}  // namespace tputrain::testing
