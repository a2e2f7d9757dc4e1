// `tputrain serve up` stopping at once on what the kubelet reports of the leader's containers
// (ImagePullBackOff, CrashLoopBackOff, OOMKilled), with the container's last log lines read through
// the real kube-apiserver from the pod's kubelet. A named exception to the real control plane
// (tests/k8s/PLAYED.md): these container states are the kubelet's, which kwok does not report on
// demand, so the test writes the leader pod and its status as the LWS controller and the kubelet
// would, and a FAKE kubelet of its own (fake_kubelet.py, in a network namespace) serves the logs.
// The LeaderWorkerSet's own status is never written here.
#include <unistd.h>

#include <filesystem>
#include <map>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "k8s/apiserver_fixture.h"
#include "k8s/fake_kubelet_host.h"
#include "k8s/jetstream_leader.h"
#include "k8s/k8s_test_util.h"
#include "k8s/serve_run.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

TEST_CASE("serve up stops at once when the leader cannot pull its image", "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  const std::string ns = server.NewNamespace("serveup-bad");
  char state_template[] = "/tmp/tputrain-serve-state-XXXXXX";
  REQUIRE(mkdtemp(state_template) != nullptr);
  ServeRun run{server.WriteKubeconfig("serveup-" + ns, server.admin_token(), ns), state_template};
  const std::string lws_path =
      "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns + "/leaderworkersets/jetstream-pathways";
  ScopedProcess up(run.Options({"serve", "up", "--model", "llama3.1-405b"}));
  const bool applied = WaitFor([&] { return Exists(server.admin(), lws_path); }, std::chrono::seconds(60));
  INFO("serve up: " << up.ReadErr());
  REQUIRE(applied);
  PlayWaitingLeader(
      server.admin(), ns, "10.0.0.1",
      {{"reason", "ImagePullBackOff"}, {"message", "Back-off pulling image \"jetstream-pathways:v0.2.0\""}});
  REQUIRE(WaitFor([&] { return !up.running(); }, std::chrono::seconds(120)));
  INFO(up.ReadErr());
  CHECK(up.Stop() == 1);
  CHECK(up.ReadErr().find("ERROR: pod jetstream-pathways-0 container jax-tpu: ImagePullBackOff: Back-off pulling "
                          "image") != std::string::npos);
  std::filesystem::remove_all(state_template);
}

// The seed's leader pod as the kubelet of `node` reports it: its four containers, in the
// kubelet's order (by name), with the statuses given.
void PlayLeaderOnNode(k8s::Client& admin, const std::string& ns, const std::string& node,
                      const std::map<std::string, nlohmann::json>& statuses) {
  const std::string pod = "jetstream-pathways-0";
  nlohmann::json containers = nlohmann::json::array();
  nlohmann::json container_statuses = nlohmann::json::array();
  for (const auto& [name, status] : statuses) {
    containers.push_back({{"name", name}, {"image", name + ":v0.2.0"}});
    nlohmann::json reported = {{"name", name}, {"image", name + ":v0.2.0"}, {"imageID", ""}, {"restartCount", 4}};
    reported.update(status);
    container_statuses.push_back(reported);
  }
  CreateObject(admin, "/api/v1/namespaces/" + ns + "/pods",
               {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata",
                 {{"name", pod},
                  {"labels",
                   {{"leaderworkerset.sigs.k8s.io/name", "jetstream-pathways"},
                    {"leaderworkerset.sigs.k8s.io/worker-index", "0"}}}}},
                {"spec", {{"nodeName", node}, {"containers", containers}}}});
  WriteStatus(admin, "/api/v1/namespaces/" + ns + "/pods/" + pod,
              {{"phase", "Running"}, {"podIP", "10.0.0.1"}, {"containerStatuses", container_statuses}});
}

nlohmann::json Running(bool ready) {
  return {{"ready", ready}, {"state", {{"running", {{"startedAt", "2026-11-24T06:00:00Z"}}}}}};
}

nlohmann::json CrashLooping(const std::string& container) {
  return {{"ready", false},
          {"state",
           {{"waiting",
             {{"reason", "CrashLoopBackOff"},
              {"message", "back-off 1m20s restarting failed container=" + container + " pod=jetstream-pathways-0"}}}}},
          {"lastState", {{"terminated", {{"exitCode", 1}, {"reason", "Error"}}}}}};
}

TEST_CASE(
    "serve up stops at once on a leader in CrashLoopBackOff or OOMKilled, with the container's last log lines "
    "read through the API server from the pod's kubelet",
    "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  // One kubelet and its Node for every section (ten lines per container: "<pod>/<container> line N").
  static FakeKubeletHost kubelet;
  static const std::string node = [&] {
    std::string name = "serve-node-" + std::to_string(getpid());
    kubelet.AddNode(server.admin(), name);
    return name;
  }();
  char state_template[] = "/tmp/tputrain-serve-state-XXXXXX";
  REQUIRE(mkdtemp(state_template) != nullptr);
  // The container's lines, the current instance's or (`previous`) the one before it.
  auto last_lines = [](bool previous) {
    std::string lines;
    for (int n = 1; n <= 10; ++n) {
      lines += std::string("jetstream-pathways-0/jax-tpu") + (previous ? " previous" : "") + " line " +
               std::to_string(n) + (n < 10 ? "\n" : "");
    }
    return lines;
  };

  // `statuses` played once serve up has applied; what it says on stderr once it has stopped.
  auto serve_up_against = [&](const std::string& ns, const std::map<std::string, nlohmann::json>& statuses) {
    ServeRun run{server.WriteKubeconfig("serveup-" + ns, server.admin_token(), ns), state_template};
    // The default wait for 405B is 45 minutes: stopping within the deadline below is stopping at once.
    ScopedProcess up(run.Options({"serve", "up", "--model", "llama3.1-405b"}));
    const std::string lws_path =
        "/apis/leaderworkerset.x-k8s.io/v1/namespaces/" + ns + "/leaderworkersets/jetstream-pathways";
    const bool applied = WaitFor([&] { return Exists(server.admin(), lws_path); }, std::chrono::seconds(60));
    INFO("serve up: " << up.ReadErr());
    REQUIRE(applied);
    PlayLeaderOnNode(server.admin(), ns, node, statuses);
    REQUIRE(WaitFor([&] { return !up.running(); }, std::chrono::seconds(120)));
    const int exit_code = up.Stop();
    const std::string err = up.ReadErr();
    INFO(err);
    CHECK(exit_code == 1);  // FailedPrecondition: the operation failed
    const auto error_at = err.find("ERROR: ");
    REQUIRE(error_at != std::string::npos);
    // Whatever the kubelet was asked for this pod: the API server passed the tail on.
    const std::string asked = kubelet.Requests();
    CHECK((asked.find("/containerLogs/" + ns + "/jetstream-pathways-0/jax-tpu?tailLines=20") != std::string::npos ||
           asked.find("/containerLogs/" + ns + "/jetstream-pathways-0/jax-tpu?previous=true&tailLines=20") !=
               std::string::npos));
    return err.substr(error_at);
  };

  SECTION("CrashLoopBackOff, with a sibling crash-looping too: the first is named, and its log is the one shown") {
    const std::string ns = server.NewNamespace("serveup-crash");
    const std::string said = serve_up_against(ns, {{"jax-tpu", CrashLooping("jax-tpu")},
                                                   {"jetstream-http", Running(true)},
                                                   {"pathways-proxy", Running(true)},
                                                   {"pathways-rm", CrashLooping("pathways-rm")}});
    CHECK(said ==
          "ERROR: pod jetstream-pathways-0 container jax-tpu: CrashLoopBackOff: back-off 1m20s "
          "restarting failed container=jax-tpu pod=jetstream-pathways-0; its last log lines:\n" +
              last_lines(false) + "\n");
  }

  SECTION("OOMKilled (the last termination's reason), the container running again") {
    const std::string ns = server.NewNamespace("serveup-oom");
    nlohmann::json oom = Running(false);
    oom["lastState"] = {{"terminated", {{"exitCode", 137}, {"reason", "OOMKilled"}}}};
    const std::string said = serve_up_against(ns, {{"jax-tpu", oom},
                                                   {"jetstream-http", Running(true)},
                                                   {"pathways-proxy", Running(true)},
                                                   {"pathways-rm", Running(true)}});
    CHECK(said ==
          "ERROR: pod jetstream-pathways-0 container jax-tpu: OOMKilled (the model does not fit the "
          "container's memory; a larger slice or int8 weights); its last log lines:\n" +
              last_lines(true) + "\n");
  }
  std::filesystem::remove_all(state_template);
}

}  // namespace
}  // namespace tputrain::testing
