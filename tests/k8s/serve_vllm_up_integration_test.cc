// `tputrain serve up|down --engine vllm` on the real kube-apiserver and control plane: the vllm
// template's Deployment applied (ledgered, the Hugging Face token's Secret first), its pod made by
// the real Deployment and ReplicaSet controllers and bound by the real scheduler to a v6e-8 node
// (kwok its kubelet), the Service's endpoints listed by the real endpoints controller. The pod is
// played by a SIMULATOR of vLLM's API (llm-d-inference-sim, in a network namespace): until the
// test starts it, the pod's address refuses connections, as vLLM's port does while it loads.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "k8s/apiserver_fixture.h"
#include "k8s/control_plane.h"
#include "k8s/k8s_test_util.h"
#include "k8s/kwok_nodes.h"
#include "k8s/netns_vllm_sim.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

constexpr char kToken[] = "hf_secretTokenNeverPrinted0123456789";

ControlPlane& Plane() {
  ControlPlaneOptions options;
  options.pod_end = PodEnd::kRunForever;
  options.answering_pods = {{"app", "vllm-tpu"}};  // the template's Deployment pods
  return ControlPlane::Shared(options);
}

// The control plane and one v6e-8 host (ct6e-standard-8t, a 2x4 slice), for the whole binary.
struct VllmWorld {
  ControlPlane& plane = Plane();
  ApiServer& server = plane.server();
  std::string state_dir = server.dir() + "/vllm-state";
  std::string token_file = server.dir() + "/hf-token";

  VllmWorld() {
    AddNodePool(server.admin(), ShapeOfGkePool("vllm", "us-east5-b",
                                               {{"name", "v6e-8-pool"},
                                                {"initialNodeCount", 1},
                                                {"config", {{"machineType", "ct6e-standard-8t"}}},
                                                {"placementPolicy", {{"tpuTopology", "2x4"}}}}));
    std::filesystem::create_directories(state_dir);
    std::ofstream(token_file) << kToken << "\n";
  }
  static VllmWorld& Shared() {
    static VllmWorld world;
    return world;
  }

  ProcessOptions Tputrain(const std::string& ns, std::vector<std::string> args, bool ledger = true) {
    ProcessOptions options;
    options.argv = {TputrainBinary()};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.argv.insert(options.argv.end(),
                        {"--kubeconfig", server.WriteKubeconfig("vllm-" + ns, server.admin_token(), ns)});
    if (ledger) options.argv.insert(options.argv.end(), {"--run", "vllm-" + ns, "--state-dir", state_dir});
    return options;
  }

  bool Exists(const std::string& path) {
    auto response = server.admin().Send("GET", path, "", "");
    return response && response->status == 200;
  }
};

TEST_CASE(
    "serve up --engine vllm applies the Deployment, waits through vLLM's closed port to /health 200; generate asks "
    "it; serve down removes what the run applied",
    "[integration]") {
  auto& world = VllmWorld::Shared();
  const std::string ns = world.server.NewNamespace("vllmup");
  NetnsVllmSim sim(/*start=*/false);  // the pod's address exists; nothing listens yet
  const std::string deployment = "/apis/apps/v1/namespaces/" + ns + "/deployments/vllm-tpu";
  const std::string service = "/api/v1/namespaces/" + ns + "/services/vllm-service";
  const std::string secret = "/api/v1/namespaces/" + ns + "/secrets/hf-token";

  // The catalog plans llama3-8b on a v6e-1; a whole v6e-8 host is asked for, tensor parallel 8.
  ScopedProcess up(world.Tputrain(ns, {"serve", "up", "--engine", "vllm", "--model", "llama3-8b", "--tpu-type", "v6e-8",
                                       "--hf-token-file", world.token_file, "--timeout", "6m"}));
  const std::string pod = world.plane.WaitScheduledPod(ns, "app=vllm-tpu");
  INFO("serve up: " << up.ReadErr());
  REQUIRE_FALSE(pod.empty());
  world.plane.ServePodAt(ns, pod, sim.ip());
  // The pod Ready (kwok does not probe), the Deployment Available: only vLLM's port holds it back.
  REQUIRE(WaitFor([&] { return up.ReadErr().find("loading (vLLM opens its port") != std::string::npos; },
                  std::chrono::minutes(3)));
  CHECK(up.running());
  sim.Start();
  REQUIRE(WaitFor([&] { return !up.running(); }, std::chrono::minutes(3)));
  const std::string out = up.ReadOut();
  const std::string err = up.ReadErr();
  INFO(out << err);
  REQUIRE(up.Stop() == 0);
  CHECK(out.find("Serving meta-llama/Meta-Llama-3-8B-Instruct on v6e-8 (" + ns + "/vllm-tpu).") != std::string::npos);
  CHECK(out.find("tputrain serve generate --engine vllm -n " + ns) != std::string::npos);
  CHECK((out + err).find(kToken) == std::string::npos);
  for (const auto& file : std::filesystem::recursive_directory_iterator(world.state_dir)) {
    if (!file.is_regular_file()) continue;
    std::ifstream in(file.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(text.find(kToken) == std::string::npos);  // the ledger records the Secret, not its value
  }
  CHECK(err.find("no node of a v6e-8 slice") == std::string::npos);  // the pool is there

  // What was applied: the token is the Secret's, the Deployment asks for the slice's chips.
  auto stored = world.server.admin().GetJson(secret, "secret");
  REQUIRE(stored);
  CHECK((*stored)["data"]["token"].get<std::string>().size() > 20);
  auto applied = world.server.admin().GetJson(deployment, "deployment");
  REQUIRE(applied);
  const auto container = (*applied)["spec"]["template"]["spec"]["containers"][0];
  CHECK(container["resources"]["limits"]["google.com/tpu"] == "8");

  // Through the API server, the answer a direct request to the simulator gets.
  const std::string prompt = "Serving on TPUs";
  const auto direct =
      sim.PostDirect("/v1/completions", {{"model", NetnsVllmSim::kModel}, {"prompt", prompt}, {"max_tokens", 10}});
  REQUIRE(direct["http_status"] == 200);
  for (const bool stream : {false, true}) {
    std::vector<std::string> args = {"serve", "generate", "--engine", "vllm", "--prompt", prompt, "--max-tokens", "10"};
    if (stream) args.push_back("--stream");
    auto asked = RunProcess(world.Tputrain(ns, args, false));
    INFO(asked.err);
    CHECK(asked.exit_code == 0);
    CHECK(asked.out == direct["choices"][0]["text"].get<std::string>() + "\n");
  }

  auto status = RunProcess(world.Tputrain(ns, {"serve", "status", "--format", "json"}, false));
  INFO(status.err);
  REQUIRE(status.exit_code == 0);
  const auto rows = nlohmann::json::parse(status.out);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["kind"] == "deployment");
  CHECK(rows[0]["available"] == true);

  // Down: what the ledger holds for the model, the Secret too; the garbage collector (real) takes
  // the ReplicaSet and the pod.
  auto down = RunProcess(
      world.Tputrain(ns, {"serve", "down", "--engine", "vllm", "--model", "llama3-8b", "--yes", "--format", "json"}));
  INFO(down.err);
  REQUIRE(down.exit_code == 0);
  CHECK(down.err.find("from its ledger") != std::string::npos);
  const auto deleted = nlohmann::json::parse(down.out);
  CHECK(deleted.size() == 3);
  for (const auto& row : deleted) CHECK(row["deleted"] == true);
  for (const auto& path : {deployment, service, secret}) CHECK_FALSE(world.Exists(path));
  CHECK(WaitFor([&] { return !world.Exists("/api/v1/namespaces/" + ns + "/pods/" + pod); }, std::chrono::minutes(2)));

  // Nothing of the model left in the ledger: a second down deletes nothing, and says so.
  auto again = RunProcess(world.Tputrain(ns, {"serve", "down", "--engine", "vllm", "--model", "llama3-8b", "--yes"}));
  CHECK(again.exit_code == 0);
  CHECK(again.err.find("is deleted already; nothing to delete") != std::string::npos);

  // A typo in --run: no such run, nothing deleted, refused as cleanup --run refuses it.
  auto options = world.Tputrain(ns, {"serve", "down", "--engine", "vllm", "--model", "llama3-8b", "--yes"});
  for (auto& arg : options.argv) {
    if (arg == "vllm-" + ns) arg = "vllm-typo";
  }
  auto typo = RunProcess(options);
  INFO(typo.err);
  CHECK(typo.exit_code == 2);
  CHECK(typo.err.rfind("ERROR: --run: no run 'vllm-typo'", 0) == 0);
}

TEST_CASE(
    "serve up --engine vllm never takes over another workload's Secret without --force; with it, serve down "
    "deletes the Secret, the token not left behind",
    "[integration]") {
  auto& world = VllmWorld::Shared();
  const std::string ns = world.server.NewNamespace("vllmsecret");
  const std::string secret = "/api/v1/namespaces/" + ns + "/secrets/hf-token";
  // Another team's Secret of the template's name, under a key of its own.
  CreateObject(world.server.admin(), "/api/v1/namespaces/" + ns + "/secrets",
               {{"apiVersion", "v1"},
                {"kind", "Secret"},
                {"metadata", {{"name", "hf-token"}}},
                {"data", {{"their-key", "dGhlaXIgdmFsdWU="}}}});
  const std::vector<std::string> up_args = {"serve",         "up",         "--engine", "vllm",      "--model",
                                            "org/m",         "--tpu-type", "v6e-8",    "--no-wait", "--hf-token-file",
                                            world.token_file};
  auto refused = RunProcess(world.Tputrain(ns, up_args));
  INFO(refused.err);
  CHECK(refused.exit_code == 1);
  CHECK(refused.err.find("Secret " + ns + "/hf-token already exists and run vllm-" + ns + " did not make it") !=
        std::string::npos);
  auto theirs = world.server.admin().GetJson(secret, "secret");
  REQUIRE(theirs);
  CHECK((*theirs)["data"].size() == 1);                                                   // no token added to it
  CHECK_FALSE(world.Exists("/apis/apps/v1/namespaces/" + ns + "/deployments/vllm-tpu"));  // nothing applied

  std::vector<std::string> forced = up_args;
  forced.push_back("--force");
  auto taken = RunProcess(world.Tputrain(ns, forced));
  INFO(taken.err);
  REQUIRE(taken.exit_code == 0);
  auto down = RunProcess(world.Tputrain(ns, {"serve", "down", "--engine", "vllm", "--model", "org/m", "--yes"}));
  INFO(down.err);
  REQUIRE(down.exit_code == 0);
  CHECK_FALSE(world.Exists(secret));  // taken over, so the run's: deleted with the rest
}

TEST_CASE("serve up --engine vllm: a slice no node offers ends the wait at once with the scheduler's reason",
          "[integration]") {
  auto& world = VllmWorld::Shared();
  const std::string ns = world.server.NewNamespace("vllmnonode");
  // v6e-4 (a 2x2 host): the cluster has only the 2x4 pool.
  auto up = RunProcess(world.Tputrain(
      ns, {"serve", "up", "--engine", "vllm", "--model", "org/tiny", "--tpu-type", "v6e-4", "--timeout", "5m"}));
  INFO(up.err);
  CHECK(up.exit_code == 1);
  CHECK(up.err.find("no node of a v6e-4 slice") != std::string::npos);  // the warning first
  CHECK(up.err.find("cannot be scheduled") != std::string::npos);
}

}  // namespace
}  // namespace tputrain::testing
