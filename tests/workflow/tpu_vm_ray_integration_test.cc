// `tputrain tpu-vm create --ray` against `tputrain emulator start --tpu-hosts netns` (root): each
// host of a v5p-16 boots as a network namespace and runs tputrain's startup script with the Ray
// peer's venv (no network to install from), so a real Ray 2.60 head on worker 0 and a worker on
// worker 1 join, Ray counting the TPU chips itself; tputrain waits on the hosts' guest attributes.
#include <regex>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "workflow/tpu_vm_hosts.h"

namespace tputrain::workflow {
namespace {

using testing::EmulatorEnv;
using testing::PeerVenv;
using testing::ThroughIap;
using tputrain::testing::ProcessOptions;

// The head's Jobs API, plain http to the host's address (the test's own client; tputrain itself
// refuses plain http off loopback and goes through a tunnel).
struct Head {
  std::string base;
  std::string token;
  http::CurlTransport transport;
  Head(const std::string& ip, std::string ray_token)
      : base("http://" + ip + ":8265"), token(std::move(ray_token)), transport([&] {
          http::CurlOptions options;
          options.plain_http_host = ip;
          return options;
        }()) {}
  core::Result<http::Response> Call(const std::string& method, const std::string& path, const std::string& body = "",
                                    bool with_token = true) {
    http::Request request;
    request.method = method;
    request.url = base + path;
    request.body = body;
    request.timeout = std::chrono::seconds(30);
    if (!body.empty()) request.headers.emplace_back("Content-Type", "application/json");
    if (with_token) request.headers.emplace_back("X-Ray-Authorization", "Bearer " + token);
    return transport.Send(request);
  }
};

TEST_CASE(
    "tpu-vm create --ray: a v5p-16's hosts start Ray at boot, head on worker 0, token auth; ray-status; "
    "delete ends them",
    "[integration]") {
  const std::string venv = PeerVenv("ray");
  if (!std::filesystem::exists(venv + "/bin/ray")) FAIL("no Ray peer at " + venv + ": run scripts/peers/ray.sh");
  EmulatorEnv env({"--tpu-hosts", "netns", "--host-path", venv});
  REQUIRE(env.ready());

  // Small Ray nodes: two share this machine (notes/tpu-vm-ray.md §4.5). A --pip value and a
  // quoted --ray-start-args word with a blank reach pip and `ray start` whole (pip finds it
  // satisfied: the hosts have no network to install from).
  std::vector<std::string> create = {"tpu-vm",
                                     "create",
                                     "ray-hosts",
                                     "--zone",
                                     "us-east5-a",
                                     "--accelerator-type",
                                     "v5p-16",
                                     "--ray",
                                     "--pip",
                                     "ray >= 2.0",
                                     "--ray-start-args",
                                     "--num-cpus=1 --object-store-memory=100000000 --resources='{\"probe\": 1}'",
                                     "--ray-timeout",
                                     "4m"};
  std::vector<std::string> as_json = create;
  as_json.insert(as_json.end(), {"--format", "json"});
  auto created = env.Tputrain(as_json);
  INFO(created.err);
  if (created.exit_code != 0) UNSCOPED_INFO(env.HostsReport());
  REQUIRE(created.exit_code == 0);
  const auto outcome = nlohmann::json::parse(created.out);
  const auto ray = outcome["resources"][0]["details"]["ray"];
  REQUIRE(ray.size() == 2);
  for (const auto& host : ray) {
    CHECK(host["state"] == "ready");
    CHECK(host["ray_version"] == "2.60.0");
  }
  CHECK(created.err.find("2/2 hosts ready") != std::string::npos);

  // A re-run with the same values adopts the node; with another --pip (which the hosts read only
  // at boot) it is refused, naming the field, before anything waits on Ray.
  auto again = env.Tputrain(create);
  INFO(again.err);
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("resumed") != std::string::npos);
  create[9] = "ray >= 2.1";
  auto differing = env.Tputrain(create);
  CHECK(differing.exit_code == 1);
  CHECK(differing.err.find("--pip (metadata tputrain-ray-packages): want 'ray >= 2.1', have 'ray >= 2.0'") !=
        std::string::npos);

  // The token is in the node's metadata and nowhere tputrain writes.
  const auto nodes = env.State()["tpuNodes"];
  std::string token;
  std::string head_ip;
  for (const auto& [name, node] : nodes.items()) {
    token = node["metadata"].value("tputrain-ray-token", "");
    head_ip = node["networkEndpoints"][0].value("ipAddress", "");
  }
  REQUIRE(token.size() == 64);
  CHECK(created.out.find(token) == std::string::npos);
  CHECK(created.err.find(token) == std::string::npos);
  auto described = env.Tputrain({"tpu-vm", "describe", "ray-hosts", "--zone", "us-east5-a", "--format", "json"}, false);
  INFO(described.err);
  REQUIRE(described.exit_code == 0);
  CHECK(described.out.find(token) == std::string::npos);

  auto status = env.Tputrain({"tpu-vm", "ray-status", "ray-hosts", "--zone", "us-east5-a", "--format", "json"}, false);
  INFO(status.err);
  REQUIRE(status.exit_code == 0);
  const auto rows = nlohmann::json::parse(status.out);
  REQUIRE(rows.size() == 2);
  CHECK(rows[1]["worker"] == "1");
  CHECK(rows[1]["state"] == "ready");

  // Ray on the hosts refuses calls without the token (the test's own plain http to the head).
  Head head(head_ip, token);
  auto refused = head.Call("GET", "/api/jobs/", "", /*with_token=*/false);
  REQUIRE(refused);
  CHECK(refused->status == 401);

  // tputrain reaches the head through IAP (the emulator's relay, as gcloud's
  // --iap-tunnel-url-override would): a job sees both hosts' chips and the head resource Ray
  // gives worker 0 of a pod.
  REQUIRE_FALSE(env.Exported("TPUTRAIN_IAP_TUNNEL_URL").empty());
  auto through_iap = [&](const std::vector<std::string>& args) { return ThroughIap(env, args); };
  auto job = through_iap({"job", "submit", "--tpu-vm", "ray-hosts", "--zone", "us-east5-a", "--", "python", "-c",
                          "import ray, json; ray.init(); print('RESOURCES', json.dumps(ray.cluster_resources()))"});
  INFO(job.err);
  REQUIRE(job.exit_code == 0);
  const auto at = job.out.find("RESOURCES ");
  REQUIRE(at != std::string::npos);
  const auto resources = nlohmann::json::parse(job.out.substr(at + 10, job.out.find('\n', at) - at - 10));
  CHECK(resources.value("TPU", 0.0) == 8.0);  // 4 chips per v5p host, counted from /dev/accel*
  CHECK(resources.value("TPU-v5p-16-head", 0.0) == 1.0);
  CHECK(resources.value("ray-hosts", 0.0) == 2.0);
  CHECK(resources.value("probe", 0.0) == 2.0);  // --resources='{"probe": 1}' on each host
  CHECK(job.err.find(token) == std::string::npos);

  // tpu-vm tunnel without --instance: worker 0 found by its hostname guest attribute; the
  // dashboard's page answers on the printed loopback port.
  {
    tputrain::testing::ScopedProcess tunnel(
        testing::ThroughIapOptions(env, {"tpu-vm", "tunnel", "ray-hosts", "--zone", "us-east5-a", "--port", "8265"}));
    REQUIRE(tputrain::testing::WaitFor([&] { return tunnel.ReadOut().find('\n') != std::string::npos; },
                                       std::chrono::seconds(30)));
    const std::string listening = tunnel.ReadOut().substr(0, tunnel.ReadOut().find('\n'));
    INFO(listening << tunnel.ReadErr());
    REQUIRE(listening.rfind("127.0.0.1:", 0) == 0);
    auto answered = testing::LoopbackPage(listening);
    REQUIRE(answered);
    CHECK(answered->status == 200);
    CHECK(tunnel.ReadErr().find("Forwarding 127.0.0.1:") != std::string::npos);
    CHECK(tunnel.Stop() == 0);  // SIGTERM ends it cleanly
  }

  // tpu-vm exec: once per host, each line said by its worker.
  auto exec = through_iap({"tpu-vm", "exec", "ray-hosts", "--zone", "us-east5-a", "--worker", "all", "--", "hostname"});
  INFO(exec.err);
  REQUIRE(exec.exit_code == 0);
  CHECK(std::regex_search(exec.out, std::regex(R"(\[worker 0\] t1v-n-[0-9a-f]+-w-0\n)")));
  CHECK(std::regex_search(exec.out, std::regex(R"(\[worker 1\] t1v-n-[0-9a-f]+-w-1\n)")));
  // A line longer than Ray's head relays on the log tail (4 MiB), and every line after it, arrive.
  auto long_line = through_iap({"tpu-vm", "exec", "ray-hosts", "--zone", "us-east5-a", "--worker", "0", "--", "python3",
                                "-c", "print('x' * 20000000); print('after')"});
  INFO(long_line.err);
  CHECK(long_line.exit_code == 0);
  const bool whole = long_line.out.find("[worker 0] " + std::string(20000000, 'x') + "\n[worker 0] after\n") !=
                     std::string::npos;  // not shown by Catch: 20 MB
  CHECK(whole);
  auto failing = through_iap({"tpu-vm", "exec", "ray-hosts", "--zone", "us-east5-a", "--worker", "1", "--", "false"});
  CHECK(failing.exit_code == 1);
  CHECK(failing.out.find("failed on worker 1 (exit 1)") != std::string::npos);  // the driver's last words, in its log

  auto deleted = env.Tputrain({"tpu-vm", "delete", "ray-hosts", "--zone", "us-east5-a", "--yes"});
  INFO(deleted.err);
  CHECK(deleted.exit_code == 0);
  auto hosts = env.Get("/_emulator/tpu-hosts");
  REQUIRE(hosts);
  INFO(hosts->dump());
  CHECK(hosts->dump().find("ray-hosts") == std::string::npos);
  auto netns = tputrain::testing::RunProcess(tputrain::testing::ProcessOptions{{"ip", "netns", "list"}});
  CHECK(netns.out.find("ray-hosts") == std::string::npos);
}

TEST_CASE("submit --model --tpu-vm: MaxText trains on a TPU VM's own Ray (seed 004 part D), reached through IAP",
          "[integration]") {
  // The hosts run Ray from the MaxText peer's venv (MaxText 0.2.5 and Ray 2.60), on CPU.
  const std::string venv = PeerVenv("maxtext");
  if (!std::filesystem::exists(venv + "/bin/ray"))
    FAIL("no MaxText peer at " + venv + ": run scripts/peers/maxtext.sh");
  EmulatorEnv env({"--tpu-hosts", "netns", "--host-path", venv});
  REQUIRE(env.ready());
  auto created =
      env.Tputrain({"tpu-vm", "create", "maxtext-vm", "--zone", "us-east5-a", "--accelerator-type", "v5p-8", "--ray",
                    "--ray-start-args", "--num-cpus=2", "--ray-timeout", "4m", "--run", "tpu-vm-run"});
  INFO(created.err);
  if (created.exit_code != 0) UNSCOPED_INFO(env.HostsReport());
  REQUIRE(created.exit_code == 0);

  auto trained =
      ThroughIap(env, {"submit", "--model", "maxtext-cpu-smoke", "--tpu-vm", "maxtext-vm", "--zone", "us-east5-a",
                       "--run", "tpu-vm-run", "--state-dir", env.state_dir(), "--format", "json"});
  INFO(trained.out << trained.err.substr(trained.err.size() > 4000 ? trained.err.size() - 4000 : 0));
  REQUIRE(trained.exit_code == 0);
  const auto json = nlohmann::json::parse(trained.out);
  CHECK(json["status"] == "SUCCEEDED");
  CHECK(json["summary"]["steps_logged"] == 8);

  auto refused = ThroughIap(
      env, {"submit", "--model", "maxtext-cpu-smoke", "--tpu-vm", "maxtext-vm", "--address", "http://127.0.0.1:1"});
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.rfind("ERROR: --tpu-vm and --address are exclusive", 0) == 0);
  // cleanup reaches the job through a tunnel of its own (the ledger names the TPU VM, not the
  // submit's loopback port), then deletes the TPU VM.
  auto cleaned =
      ThroughIap(env, {"cleanup", "--run", "tpu-vm-run", "--state-dir", env.state_dir(), "--yes", "--format", "json"});
  INFO(cleaned.out << cleaned.err);
  REQUIRE(cleaned.exit_code == 0);
  const auto outcomes = nlohmann::json::parse(cleaned.out);
  std::map<std::string, std::string> actions;
  REQUIRE(outcomes["runs"].size() == 1);
  for (const auto& outcome : outcomes["runs"][0]["resources"]) {
    actions[outcome.value("kind", "")] = outcome.value("action", "");
  }
  CHECK(actions["ray-job"] == "already finished");
  CHECK(actions["tpu-vm"] == "deleted");
  CHECK(env.State().value("tpuNodes", nlohmann::json::object()).empty());
}

}  // namespace
}  // namespace tputrain::workflow
