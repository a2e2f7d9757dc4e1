// The whole Ray path through the API server: a real Ray head in a network namespace serving the
// head pod of a RayCluster made by the real KubeRay (its Service, and Endpoints from the endpoints
// controller), reached through the API server's service proxy with the Ray Jobs client, the log
// followed over the proxied WebSocket.
#include <catch2/catch.hpp>

#include <signal.h>

#include "k8s/integration_plane.h"
#include "k8s/k8s_test_util.h"
#include "k8s/netns_ray_head.h"
#include "testing/scoped_process.h"
#include "tputrain/http/credential.h"
#include "tputrain/http/websocket.h"
#include "tputrain/k8s/service_proxy.h"
#include "tputrain/ray/jobs_client.h"
#include "tputrain/ray/log_follower.h"

namespace tputrain::testing {
namespace {

TEST_CASE("the Ray Jobs client reaches a RayCluster head through the service proxy", "[integration]") {
  auto& plane = RayHeadPlane();
  auto& server = plane.server();
  NetnsRayHead head;
  std::string ns = server.NewNamespace("rayproxy");
  RunRayClusterAt(plane, ns, "ray", head.ip());

  auto connection = ConnectWith(server.KubeconfigText(server.admin_token(), ns));
  auto endpoint = k8s::RayHeadEndpoint(*connection->client, ns, "ray");
  REQUIRE(endpoint);
  CHECK(endpoint->base_url == server.server() + "/api/v1/namespaces/" + ns + "/services/ray-head-svc:8265/proxy/");

  // The cluster's own transport stack carries the Kubernetes credential; the proxy endpoint's
  // headers are Ray's only.
  CHECK(endpoint->headers.empty());
  http::Transport& transport = *connection->transport;
  core::SystemClock clock;
  core::RealSleeper sleeper;
  ray::ClientOptions options;
  auto address = ray::NormalizeAddress(endpoint->base_url);
  REQUIRE(address);
  options.address = *address;
  options.headers = endpoint->headers;
  ray::JobsClient client(transport, sleeper, options);
  auto version = client.Version();
  INFO((version ? "" : version.error().message));
  REQUIRE(version);
  CHECK(version->ray_version == "2.60.0");

  ray::SubmitRequest request;
  request.entrypoint = "python -c \"print('hello through the proxy')\"";
  auto submitted = client.Submit(request);
  INFO((submitted ? "" : submitted.error().message));
  REQUIRE(submitted);

  http::WebSocketOptions ws;
  ws.ca_pem = server.ca_pem();
  http::CurlWebSocketConnector bare_connector(ws);
  http::CredentialWebSocketConnector connector(bare_connector, *connection->credentials);
  std::vector<std::string> notices;
  ray::FollowOptions follow;
  follow.on_notice = [&](std::string_view notice) { notices.emplace_back(notice); };
  ray::LogFollower follower(client, connector, clock, sleeper, follow);
  std::string log;
  auto job = follower.Follow(submitted->submission_id, [&](std::string_view text) { log += text; });
  INFO((job ? "" : job.error().message));
  REQUIRE(job);
  CHECK(job->status == ray::JobStatus::kSucceeded);
  CHECK(log.find("hello through the proxy") != std::string::npos);
  for (const auto& notice : notices) UNSCOPED_INFO(notice);
  CHECK(notices.empty());  // the WebSocket tail went through the proxy: no fallback to polling

  // The same through the CLI, with only the kubeconfig: the job's exit code comes back.
  std::string kubeconfig = server.WriteKubeconfig("rayproxy-" + ns, server.admin_token(), ns);
  for (auto [code, want] : {std::pair{0, 0}, std::pair{7, 1}}) {
    ProcessOptions cli;
    cli.argv = {TputrainBinary(),
                "job",
                "submit",
                "--raycluster",
                "ray",
                "--kubeconfig",
                kubeconfig,
                "--",
                "python",
                "-c",
                "import sys; print('hello from the cli'); sys.exit(" + std::to_string(code) + ")"};
    cli.env = {{"RAY_ADDRESS", std::nullopt}, {"KUBECONFIG", std::nullopt}};
    auto result = RunProcess(cli, std::chrono::seconds(300));
    INFO(result.err);
    CHECK(result.exit_code == want);
    CHECK(result.out.find("hello from the cli") != std::string::npos);
    CHECK(result.err.find("polling") == std::string::npos);
    CHECK(result.out.find(server.admin_token()) == std::string::npos);
    CHECK(result.err.find(server.admin_token()) == std::string::npos);
  }

  // Ctrl-C while following, without a terminal: detached, with a re-attach command that goes
  // through the RayCluster again (the proxy URL alone would lack the cluster's credential). The
  // job prints a line first, so its arrival on the follower's stdout shows the follow is live.
  const std::string kFollowing = "job running, waiting to be interrupted";
  ProcessOptions sleeper_job;
  const std::string job_program = "import time; print('" + kFollowing + "', flush=True); time.sleep(60)";
  sleeper_job.argv = {TputrainBinary(), "job",       "submit", "--raycluster", "ray", "--kubeconfig",
                      kubeconfig,       "--no-wait", "--",     "python",       "-c",  job_program};
  sleeper_job.env = {{"RAY_ADDRESS", std::nullopt}, {"KUBECONFIG", std::nullopt}};
  auto started = RunProcess(sleeper_job, std::chrono::seconds(120));
  REQUIRE(started.exit_code == 0);
  std::string id = started.out.substr(0, started.out.find('\n'));
  ProcessOptions follow_cli;
  follow_cli.argv = {TputrainBinary(), "job", "logs",         "--follow", id,
                     "--raycluster",   "ray", "--kubeconfig", kubeconfig};
  follow_cli.env = sleeper_job.env;
  {
    ScopedProcess following(follow_cli);
    REQUIRE(WaitFor([&] { return following.ReadOut().find(kFollowing) != std::string::npos || !following.running(); },
                    std::chrono::seconds(120)));
    INFO(following.ReadErr());
    REQUIRE(following.running());
    ::kill(following.pid(), SIGINT);
    REQUIRE(WaitFor([&] { return !following.running(); }, std::chrono::seconds(20)));
    CHECK(following.Stop() == 130);
    INFO(following.ReadErr());
    CHECK(following.ReadErr().find("tputrain job logs --follow " + id + " --raycluster ray --kubeconfig " +
                                   kubeconfig) != std::string::npos);
  }
  auto stopped = RunProcess(
      {{TputrainBinary(), "job", "stop", id, "--raycluster", "ray", "--kubeconfig", kubeconfig}, sleeper_job.env},
      std::chrono::seconds(60));
  CHECK(stopped.exit_code == 0);
}

}  // namespace
}  // namespace tputrain::testing
