// tputrain logs against a real kube-apiserver. The API server reads a pod's log from the kubelet
// of the pod's node (https://<Node InternalIP>:<kubeletEndpoint.Port>/containerLogs/NS/POD/C);
// no kubelet can run here, so a FAKE kubelet of this test's own (fake_kubelet.py, made-up log
// lines) listens in a network namespace the test creates (the API server refuses loopback
// backends), and a Node object points at it. Everything between tputrain and that fake is real:
// the API server's pods/log, its query passed on, its streaming and its 400 for a waiting
// container.
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "k8s/fake_kubelet_host.h"
#include "k8s/k8s_test_util.h"

namespace tputrain::testing {
namespace {

// One fake kubelet and one Node pointing at it, for the whole binary.
struct LogsWorld {
  ApiServer& server = ApiServer::Shared();
  FakeKubeletHost kubelet;
  std::string node = "fake-node-" + std::to_string(getpid());

  LogsWorld() { kubelet.AddNode(server.admin(), node); }
  static LogsWorld& Shared() {
    static LogsWorld world;
    return world;
  }

  // A pod bound to the fake node (spec.nodeName, as the scheduler would set it), or to no node.
  void Pod(const std::string& ns, const std::string& name, const nlohmann::json& labels,
           const std::vector<std::string>& containers = {"main"}, const nlohmann::json& annotations = nullptr,
           bool scheduled = true) {
    nlohmann::json spec_containers = nlohmann::json::array();
    for (const auto& container : containers) spec_containers.push_back({{"name", container}, {"image", "busybox"}});
    nlohmann::json metadata = {{"name", name}, {"labels", labels}};
    if (!annotations.is_null()) metadata["annotations"] = annotations;
    nlohmann::json spec = {{"containers", spec_containers}};
    if (scheduled) spec["nodeName"] = node;
    CreateObject(server.admin(), "/api/v1/namespaces/" + ns + "/pods",
                 {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", spec}});
  }

  // The pods an LWS named `lws` would make for one group of `size`: NAME-0, NAME-0-1, ...
  void LwsGroup(const std::string& ns, const std::string& lws, int size, const std::string& worker_suffix = "") {
    for (int worker = 0; worker < size; ++worker) {
      std::string name = lws + "-0" + (worker == 0 ? "" : worker_suffix + "-" + std::to_string(worker));
      Pod(ns, name,
          {{"leaderworkerset.sigs.k8s.io/name", lws},
           {"leaderworkerset.sigs.k8s.io/group-index", "0"},
           {"leaderworkerset.sigs.k8s.io/worker-index", std::to_string(worker)}});
    }
  }
};

// The pods LeaderWorkerSet makes for one group of the rendered jetstream-pathways-405b template
// (seed 002): the leader from its leader template (four containers and the template's
// annotations), the workers from the worker template (one container), all on the fake node.
std::vector<std::string> RenderedJetStreamGroup(LogsWorld& world, const std::string& ns) {
  const std::string out = world.server.dir() + "/render-" + ns;
  auto rendered = RunProcess(
      {.argv = {TputrainBinary(), "render", "jetstream-pathways-405b", "--values",
                std::string(TPUTRAIN_SOURCE_DIR) + "/tests/render/seed-values/jetstream-pathways-405b.yaml", "-o", out},
       .env = {{"TPUTRAIN_BUCKET", std::nullopt}, {"TPUTRAIN_TEMPLATE_DIR", std::nullopt}}});
  INFO(rendered.err);
  REQUIRE(rendered.exit_code == 0);
  nlohmann::json lws;
  for (const auto& object : Parse(ReadTextFile(out + "/jetstream-pathways.yaml"))) {
    if (object.kind == "LeaderWorkerSet") lws = object.json;
  }
  REQUIRE(lws.is_object());
  const std::string name = lws["metadata"]["name"];
  const auto& group = lws["spec"]["leaderWorkerTemplate"];
  const int size = group["size"].get<int>();
  std::vector<std::string> pods;
  for (int worker = 0; worker < size; ++worker) {
    const auto& pod_template = worker == 0 ? group["leaderTemplate"] : group["workerTemplate"];
    nlohmann::json metadata = pod_template.value("metadata", nlohmann::json::object());
    std::string pod = name + "-0" + (worker == 0 ? "" : "-" + std::to_string(worker));
    metadata["name"] = pod;
    metadata["labels"]["leaderworkerset.sigs.k8s.io/name"] = name;
    metadata["labels"]["leaderworkerset.sigs.k8s.io/group-index"] = "0";
    metadata["labels"]["leaderworkerset.sigs.k8s.io/worker-index"] = std::to_string(worker);
    nlohmann::json spec = pod_template["spec"];
    spec["nodeName"] = world.node;
    CreateObject(world.server.admin(), "/api/v1/namespaces/" + ns + "/pods",
                 {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", spec}});
    pods.push_back(pod);
  }
  return pods;
}

ProcessOptions LogsCommand(const std::string& kubeconfig, std::vector<std::string> args) {
  ProcessOptions options;
  options.argv = {TputrainBinary(), "logs"};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.env = {{"KUBECONFIG", kubeconfig}, {"NO_COLOR", "1"}, {"XDG_STATE_HOME", kubeconfig + ".state"}};
  return options;
}

ProcessResult Logs(const std::string& kubeconfig, std::vector<std::string> args) {
  return RunProcess(LogsCommand(kubeconfig, std::move(args)), std::chrono::seconds(120));
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

int CountLines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

std::string Expected(const std::string& prefix, const std::string& pod, const std::string& container, int from,
                     int to) {
  std::string text;
  for (int n = from; n <= to; ++n) text += prefix + pod + "/" + container + " line " + std::to_string(n) + "\n";
  return text;
}

TEST_CASE("logs lws/NAME reads each pod's log through the API server, prefixed, pod after pod", "[integration]") {
  auto& world = LogsWorld::Shared();
  std::string ns = world.server.NewNamespace("logs");
  std::string kubeconfig = world.server.WriteKubeconfig("logs-" + ns, world.server.admin_token(), ns);
  world.LwsGroup(ns, "jet", 2);

  auto read = Logs(kubeconfig, {"lws/jet"});
  INFO(read.err);
  REQUIRE(read.exit_code == 0);
  CHECK(read.out == Expected("[pod/jet-0/main] ", "jet-0", "main", 1, 10) +
                        Expected("[pod/jet-0-1/main] ", "jet-0-1", "main", 1, 10));
  // The API server dialled the fake kubelet with the pod's own path and the container it was told.
  CHECK(world.kubelet.Requests().find("/containerLogs/" + ns + "/jet-0/main") != std::string::npos);

  // The same names and spellings kubectl takes; one pod is not prefixed unless asked.
  for (const char* target : {"leaderworkersets/jet", "LeaderWorkerSet/jet"}) {
    CHECK(Logs(kubeconfig, {target}).out == read.out);
  }
  CHECK(Logs(kubeconfig, {"jet-0"}).out == Expected("", "jet-0", "main", 1, 10));
  CHECK(Logs(kubeconfig, {"po/jet-0", "--prefix"}).out == Expected("[pod/jet-0/main] ", "jet-0", "main", 1, 10));
  CHECK(Logs(kubeconfig, {"lws/jet", "--no-prefix"}).out ==
        Expected("", "jet-0", "main", 1, 10) + Expected("", "jet-0-1", "main", 1, 10));
}

TEST_CASE("logs --tail, --since and --timestamps reach the kubelet as tailLines, sinceSeconds, timestamps",
          "[integration]") {
  auto& world = LogsWorld::Shared();
  std::string ns = world.server.NewNamespace("logs");
  std::string kubeconfig = world.server.WriteKubeconfig("logs-" + ns, world.server.admin_token(), ns);
  world.Pod(ns, "solo", {{"app", "solo"}});

  auto tail = Logs(kubeconfig, {"pod/solo", "--tail", "3"});
  INFO(tail.err);
  CHECK(tail.exit_code == 0);
  CHECK(tail.out == Expected("", "solo", "main", 8, 10));
  CHECK(world.kubelet.Requests().find("/containerLogs/" + ns + "/solo/main?tailLines=3") != std::string::npos);

  // Lines 1-5 are two hours old, 6-10 from the last minute.
  auto since = Logs(kubeconfig, {"pod/solo", "--since", "10m"});
  CHECK(since.exit_code == 0);
  CHECK(since.out == Expected("", "solo", "main", 6, 10));
  CHECK(world.kubelet.Requests().find("/containerLogs/" + ns + "/solo/main?sinceSeconds=600") != std::string::npos);

  auto both = Logs(kubeconfig, {"pod/solo", "--since", "1h30m", "--tail", "2", "--timestamps"});
  CHECK(both.exit_code == 0);
  auto lines = SplitLines(both.out);
  REQUIRE(lines.size() == 2);
  std::regex stamped(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z solo/main line (9|10))");
  for (const auto& line : lines) CHECK(std::regex_match(line, stamped));
  CHECK(world.kubelet.Requests().find("sinceSeconds=5400") != std::string::npos);

  // --previous: the instance a crash ended (the fake kubelet's lines say which they are).
  auto previous = Logs(kubeconfig, {"pod/solo", "--previous", "--tail", "1"});
  INFO(previous.err);
  CHECK(previous.exit_code == 0);
  CHECK(previous.out == "solo/main previous line 10\n");
  // The API server passes the parameters on in an order of its own.
  const std::string asked = world.kubelet.Requests();
  CHECK(asked.find("/containerLogs/" + ns + "/solo/main?previous=true&tailLines=1") != std::string::npos);
}

TEST_CASE("logs -f follows several pods at once: lines arrive while they are written, whole and prefixed",
          "[integration]") {
  auto& world = LogsWorld::Shared();
  std::string ns = world.server.NewNamespace("logs");
  std::string kubeconfig = world.server.WriteKubeconfig("logs-" + ns, world.server.admin_token(), ns);
  world.LwsGroup(ns, "live", 3);
  std::vector<std::string> pods = {"live-0", "live-0-1", "live-0-2"};

  ScopedProcess follow(LogsCommand(kubeconfig, {"-f", "lws/live"}));
  // Each fake stream holds back its "follow" lines until its gate opens: the first 30 lines are
  // on stdout while every stream is still open.
  REQUIRE(WaitFor([&] { return CountLines(follow.ReadOut()) >= 30 || !follow.running(); }, std::chrono::seconds(60)));
  REQUIRE(follow.running());
  CHECK(follow.ReadOut().find("follow") == std::string::npos);
  for (const auto& pod : pods) world.kubelet.OpenGate(pod);
  REQUIRE(WaitFor([&] { return !follow.running(); }, std::chrono::seconds(60)));
  CHECK(follow.Stop() == 0);
  INFO(follow.ReadErr());

  // Interleaved by arrival, but every line whole (each was sent in two halves) and each pod's
  // lines in their order: its ten lines, then follow 1..3.
  auto lines = SplitLines(follow.ReadOut());
  CHECK(lines.size() == 39);
  std::regex whole(R"(\[pod/(live-0(?:-1|-2)?)/main\] (live-0(?:-1|-2)?)/main (line|follow) (\d+))");
  std::map<std::string, std::vector<std::string>> per_pod;
  for (const auto& line : lines) {
    std::smatch match;
    INFO(line);
    REQUIRE(std::regex_match(line, match, whole));
    CHECK(match[1].str() == match[2].str());
    per_pod[match[1].str()].push_back(match[3].str() + " " + match[4].str());
  }
  for (const auto& pod : pods) {
    std::vector<std::string> expected;
    for (int n = 1; n <= 10; ++n) expected.push_back("line " + std::to_string(n));
    for (int n = 1; n <= 3; ++n) expected.push_back("follow " + std::to_string(n));
    CHECK(per_pod[pod] == expected);
  }
  CHECK(world.kubelet.Requests().find("/containerLogs/" + ns + "/live-0-2/main?follow=true") != std::string::npos);

  // More pods than --max-log-requests: refused before any log is read.
  auto refused = Logs(kubeconfig, {"-f", "lws/live", "--max-log-requests", "2"});
  CHECK(refused.exit_code == 2);
  CHECK(refused.out.empty());
  CHECK(refused.err.find("--max-log-requests") != std::string::npos);
  CHECK(CountLines(refused.err) == 1);
}

TEST_CASE("logs picks the container as kubectl does, and says which to choose", "[integration]") {
  auto& world = LogsWorld::Shared();
  std::string ns = world.server.NewNamespace("logs");
  std::string kubeconfig = world.server.WriteKubeconfig("logs-" + ns, world.server.admin_token(), ns);
  world.Pod(ns, "multi", {{"app", "multi"}}, {"main", "sidecar"});
  world.Pod(ns, "annotated", {{"app", "annotated"}}, {"main", "sidecar"},
            {{"kubectl.kubernetes.io/default-container", "sidecar"}});

  auto unchosen = Logs(kubeconfig, {"pod/multi"});
  CHECK(unchosen.exit_code == 2);
  CHECK(unchosen.out.empty());
  CHECK(unchosen.err == "ERROR: -c/--container: pod/multi has 2 containers, choose one of: main, sidecar\n");

  auto chosen = Logs(kubeconfig, {"pod/multi", "-c", "sidecar"});
  CHECK(chosen.exit_code == 0);
  CHECK(chosen.out == Expected("", "multi", "sidecar", 1, 10));

  auto absent = Logs(kubeconfig, {"pod/multi", "--container", "nope"});
  CHECK(absent.exit_code == 2);
  CHECK(absent.err == "ERROR: -c/--container: pod/multi has no container 'nope'; its containers: main, sidecar\n");

  auto annotated = Logs(kubeconfig, {"annotated"});
  CHECK(annotated.exit_code == 0);
  CHECK(annotated.out == Expected("", "annotated", "sidecar", 1, 10));

  // An annotation naming a container the pod does not have is said.
  world.Pod(ns, "stale", {{"app", "stale"}}, {"main", "sidecar"},
            {{"kubectl.kubernetes.io/default-container", "gone"}});
  auto stale = Logs(kubeconfig, {"pod/stale"});
  CHECK(stale.exit_code == 2);
  CHECK(stale.err ==
        "ERROR: -c/--container: pod/stale has 2 containers, choose one of: main, sidecar (its "
        "kubectl.kubernetes.io/default-container, 'gone', is none of them)\n");
}

TEST_CASE("logs lws/NAME on JetStream's real pod shapes: the leader's default container, -c for the pods that have it",
          "[integration]") {
  auto& world = LogsWorld::Shared();
  std::string ns = world.server.NewNamespace("logs");
  std::string kubeconfig = world.server.WriteKubeconfig("logs-" + ns, world.server.admin_token(), ns);
  auto pods = RenderedJetStreamGroup(world, ns);
  REQUIRE(pods == std::vector<std::string>{"jetstream-pathways-0", "jetstream-pathways-0-1", "jetstream-pathways-0-2",
                                           "jetstream-pathways-0-3", "jetstream-pathways-0-4"});

  // The README's example: the leader's jax-tpu (its annotation), each worker's only container.
  auto all = Logs(kubeconfig, {"lws/jetstream-pathways", "--tail", "1"});
  INFO(all.err);
  CHECK(all.exit_code == 0);
  std::string expected = Expected("[pod/jetstream-pathways-0/jax-tpu] ", "jetstream-pathways-0", "jax-tpu", 10, 10);
  for (int worker = 1; worker <= 4; ++worker) {
    std::string pod = "jetstream-pathways-0-" + std::to_string(worker);
    expected += Expected("[pod/" + pod + "/worker] ", pod, "worker", 10, 10);
  }
  CHECK(all.out == expected);
  CHECK(all.err.empty());

  // -c names the leader's container: read there, the workers skipped in one line.
  auto leader = Logs(kubeconfig, {"lws/jetstream-pathways", "-c", "jetstream-http", "--tail", "2"});
  INFO(leader.err);
  CHECK(leader.exit_code == 0);
  CHECK(leader.out == Expected("", "jetstream-pathways-0", "jetstream-http", 9, 10));
  CHECK(leader.err ==
        "WARNING: skipped pod/jetstream-pathways-0-1, pod/jetstream-pathways-0-2, pod/jetstream-pathways-0-3, "
        "pod/jetstream-pathways-0-4: no container \"jetstream-http\"\n");

  // -c names the workers' container: the four workers, prefixed; the leader skipped.
  auto workers = Logs(kubeconfig, {"lws/jetstream-pathways", "-c", "worker", "--tail", "1"});
  CHECK(workers.exit_code == 0);
  CHECK(workers.out == expected.substr(expected.find("[pod/jetstream-pathways-0-1/")));
  CHECK(workers.err == "WARNING: skipped pod/jetstream-pathways-0: no container \"worker\"\n");

  // Followed, only the streams read count against --max-log-requests.
  for (const auto& pod : pods) world.kubelet.OpenGate(pod);
  auto followed = Logs(kubeconfig, {"lws/jetstream-pathways", "-f", "-c", "jax-tpu", "--max-log-requests", "1"});
  INFO(followed.err);
  CHECK(followed.exit_code == 0);
  CHECK(followed.out.ends_with("jetstream-pathways-0/jax-tpu follow 3\n"));

  // No pod has it: one usage line, nothing read.
  auto none = Logs(kubeconfig, {"lws/jetstream-pathways", "-c", "nope"});
  CHECK(none.exit_code == 2);
  CHECK(none.out.empty());
  CHECK(none.err ==
        "ERROR: -c/--container: no pod of lws/jetstream-pathways has a container 'nope' (pod/jetstream-pathways-0: "
        "pathways-proxy, pathways-rm, jax-tpu, jetstream-http; pod/jetstream-pathways-0-1: worker; "
        "pod/jetstream-pathways-0-2: worker; ...)\n");
}

TEST_CASE("a pod whose container is waiting to start is one line, and the other pods' logs still come",
          "[integration]") {
  auto& world = LogsWorld::Shared();
  std::string ns = world.server.NewNamespace("logs");
  std::string kubeconfig = world.server.WriteKubeconfig("logs-" + ns, world.server.admin_token(), ns);
  world.LwsGroup(ns, "mixed", 2, "-waiting");  // mixed-0 runs, mixed-0-waiting-1 is ContainerCreating

  world.kubelet.OpenGate("mixed-0");
  auto mixed = Logs(kubeconfig, {"-f", "lws/mixed"});
  INFO(mixed.err);
  CHECK(mixed.exit_code == 0);
  CHECK(mixed.out.ends_with("[pod/mixed-0/main] mixed-0/main follow 3\n"));
  CHECK(mixed.out.starts_with(Expected("[pod/mixed-0/main] ", "mixed-0", "main", 1, 10)));
  CHECK(mixed.out.find("mixed-0-waiting-1") == std::string::npos);
  CHECK(CountLines(mixed.err) == 1);
  // The kubelet's refusal, as the API server passes it on (a 400 Status).
  CHECK(mixed.err.find("pod/mixed-0-waiting-1: container \"main\" in pod \"mixed-0-waiting-1\" is waiting to start: "
                       "ContainerCreating") != std::string::npos);

  // Alone, it is the command's one error line.
  auto alone = Logs(kubeconfig, {"pod/mixed-0-waiting-1"});
  CHECK(alone.exit_code == 1);
  CHECK(alone.out.empty());
  CHECK(
      alone.err ==
      "ERROR: (kubernetes) pod/mixed-0-waiting-1: container \"main\" in pod \"mixed-0-waiting-1\" is waiting to start: "
      "ContainerCreating\n");

  // A pod not scheduled yet has no kubelet to ask.
  world.Pod(ns, "pending", {{"app", "pending"}}, {"main"}, nullptr, /*scheduled=*/false);
  auto pending = Logs(kubeconfig, {"pod/pending"});
  CHECK(pending.exit_code == 1);
  CHECK(pending.err ==
        "ERROR: (kubernetes) pod/pending is Pending: not scheduled to a node yet, so container \"main\" has no log\n");
}

TEST_CASE("logs finds a Job's pods by either label, and a Deployment's by its selector", "[integration]") {
  auto& world = LogsWorld::Shared();
  std::string ns = world.server.NewNamespace("logs");
  std::string kubeconfig = world.server.WriteKubeconfig("logs-" + ns, world.server.admin_token(), ns);
  world.Pod(ns, "new-abcde", {{"batch.kubernetes.io/job-name", "new"}, {"job-name", "new"}});
  world.Pod(ns, "old-fghij", {{"job-name", "old"}});  // before Kubernetes 1.27
  world.Pod(ns, "set-0-0", {{"jobset.sigs.k8s.io/jobset-name", "set"}});
  world.Pod(ns, "ray-head", {{"ray.io/cluster", "ray"}, {"ray.io/node-type", "head"}});
  world.Pod(ns, "web-1234", {{"app", "web"}});
  CreateObject(world.server.admin(), "/apis/apps/v1/namespaces/" + ns + "/deployments", nlohmann::json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
    "spec": {"selector": {"matchLabels": {"app": "web"}},
             "template": {"metadata": {"labels": {"app": "web"}},
                          "spec": {"containers": [{"name": "main", "image": "busybox"}]}}}})"));

  CHECK(Logs(kubeconfig, {"job/new", "--tail", "1"}).out == Expected("", "new-abcde", "main", 10, 10));
  CHECK(Logs(kubeconfig, {"jobs/old", "--tail", "1"}).out == Expected("", "old-fghij", "main", 10, 10));
  CHECK(Logs(kubeconfig, {"jobset/set", "--tail", "1"}).out == Expected("", "set-0-0", "main", 10, 10));
  CHECK(Logs(kubeconfig, {"rayclusters/ray", "--tail", "1"}).out == Expected("", "ray-head", "main", 10, 10));
  CHECK(Logs(kubeconfig, {"deploy/web", "--tail", "1"}).out == Expected("", "web-1234", "main", 10, 10));

  auto none = Logs(kubeconfig, {"lws/absent"});
  CHECK(none.exit_code == 1);
  CHECK(none.err == "ERROR: (kubernetes) lws/absent: no pods in namespace " + ns +
                        " with leaderworkerset.sigs.k8s.io/name=absent (not created yet, or already deleted?)\n");
}

TEST_CASE("bad logs input is one line naming the flag, exit 2, before any call", "[integration]") {
  auto& world = LogsWorld::Shared();
  std::string kubeconfig = world.server.WriteKubeconfig("logs-bad", world.server.admin_token(), "default");
  struct Case {
    std::vector<std::string> args;
    std::string named;
  };
  for (const auto& [args, named] :
       std::vector<Case>{{{"lws/../x"}, "TARGET"},
                         {{"pod/a/b"}, "TARGET"},
                         {{"svc/x"}, "TARGET"},
                         {{"Bad_Name"}, "TARGET"},
                         {{"x", "--tail", "-5"}, "--tail"},
                         {{"x", "--tail", "ten"}, "--tail"},
                         {{"x", "--since", "soon"}, "--since"},
                         {{"x", "--previous", "-f"}, "--previous"},
                         {{"x", "--max-log-requests", "0"}, "--max-log-requests"},
                         {{"x", "-c", "../c"}, "-c/--container"},
                         {{"x", "-n", "../kube-system"}, "--namespace: expected a namespace"},
                         {{"x", "--format", "json"}, "--format"},
                         {{"x", "--format", "yaml"}, "--format"}}) {
    auto with_verbose = args;
    with_verbose.push_back("--verbose");
    auto run = Logs(kubeconfig, with_verbose);
    INFO(run.err);
    CHECK(run.exit_code == 2);
    CHECK(run.out.empty());
    CHECK(CountLines(run.err) == 1);
    CHECK(run.err.find(named) != std::string::npos);
    CHECK(run.err.find("http: ") == std::string::npos);  // --verbose shows every call: there was none
  }
}

TEST_CASE("Ctrl-C ends a follow that is waiting for lines: exit 130", "[integration]") {
  auto& world = LogsWorld::Shared();
  std::string ns = world.server.NewNamespace("logs");
  std::string kubeconfig = world.server.WriteKubeconfig("logs-" + ns, world.server.admin_token(), ns);
  world.Pod(ns, "forever-0", {{"app", "forever"}});

  ScopedProcess follow(LogsCommand(kubeconfig, {"-f", "forever-0"}));
  REQUIRE(WaitFor([&] { return CountLines(follow.ReadOut()) >= 10 || !follow.running(); }, std::chrono::seconds(60)));
  REQUIRE(follow.running());
  kill(follow.pid(), SIGINT);
  REQUIRE(WaitFor([&] { return !follow.running(); }, std::chrono::seconds(30)));
  CHECK(follow.Stop() == 130);
  CHECK(follow.ReadOut() == Expected("", "forever-0", "main", 1, 10));
}

}  // namespace
}  // namespace tputrain::testing
