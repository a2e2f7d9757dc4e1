// `tputrain up|status|down -f STACK` against `tputrain emulator start`: steps in parallel and
// ledgered, a failed step's dependents skipped and finished by a second `up`, Ctrl-C then `up`
// again, a changed shape refused with nothing sent, bad files refused before any call.
#include <signal.h>

#include <algorithm>
#include <fstream>

#include <catch2/catch.hpp>

#include "emulator_env.h"

namespace tputrain::workflow::testing {
namespace {

using nlohmann::json;

// The cloud side of a path: every kind of step but those that run on the cluster.
std::string StackText(const std::string& name, const std::string& cpu_nodes = "1") {
  return "name: " + name +
         "\n"
         "project: p\n"
         "location: us-east5-b\n"
         "services: [container.googleapis.com, storage.googleapis.com]\n"
         "cluster:\n"
         "  name: ray-tpu\n"
         "  workload-identity: true\n"
         "  tpu-type: v6e-16\n"
         "nodepools:\n"
         "  - name: cpu\n"
         "    machine-type: n2-standard-8\n"
         "    num-nodes: " +
         cpu_nodes +
         "\n"
         "bucket:\n"
         "  name: " +
         name +
         "-ckpt\n"
         "identity:\n"
         "  - ksa: default/ray-ksa\n"
         "    bucket: " +
         name +
         "-ckpt\n"
         "    role: roles/storage.objectUser\n"
         "registry:\n"
         "  name: tputrain\n"
         "image:\n"
         "  dir: image\n"
         "  tag: us-east5-docker.pkg.dev/p/tputrain/trainer:v1\n";
}

struct StackEnv {
  EmulatorEnv& emulator;
  std::string file;

  StackEnv(EmulatorEnv& env, const std::string& text) : emulator(env) {
    fs::create_directories(env.dir() / "image");
    std::ofstream(env.dir() / "image" / "Dockerfile") << "FROM python:3.11-slim\n";
    Write(text);
  }
  void Write(const std::string& text) {
    file = (emulator.dir() / "stack.yaml").string();
    std::ofstream(file) << text;
  }
  ProcessResult Up(std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"up", "-f", file};
    args.insert(args.end(), more.begin(), more.end());
    return emulator.Tputrain(args);
  }
};

size_t Count(const json& state, const std::string& section) { return state.value(section, json::object()).size(); }

size_t NodePools(const json& state) {
  size_t pools = 0;
  const json clusters = state.value("clusters", json::object());
  for (const auto& [key, cluster] : clusters.items()) pools += cluster.value("nodePools", json::array()).size();
  return pools;
}

json Ledger(EmulatorEnv& env, const std::string& run) {
  auto shown = env.Tputrain({"runs", "show", "--run", run, "--format", "json"});
  INFO(shown.err);
  REQUIRE(shown.exit_code == 0);
  return json::parse(shown.out);
}

size_t Created(const json& ledger, const std::string& kind) {
  size_t count = 0;
  for (const auto& entry : ledger["entries"]) {
    if (entry.value("kind", "") == kind && entry.value("state", "") == "created") ++count;
  }
  return count;
}

// The API calls among the emulator's requests (not its own /_emulator endpoints); `mutations`:
// only those that are not reads.
size_t Calls(const json& requests, bool mutations) {
  size_t count = 0;
  for (const auto& request : requests) {
    const std::string method = request.value("method", "");
    const std::string path = request.value("path", "");
    if (path.rfind("/_emulator", 0) == 0 || (mutations && method == "GET")) continue;
    ++count;
  }
  return count;
}
size_t Mutations(const json& requests) { return Calls(requests, true); }
// The mutations among the emulator's requests after the first `before`.
size_t MutationsSince(EmulatorEnv& emulator, size_t before) {
  const json requests = emulator.Requests();
  return Mutations(json(std::vector<json>(requests.begin() + static_cast<long>(before), requests.end())));
}

TEST_CASE("stack: up makes every step, a second up only reads, status says so, down leaves nothing", "[integration]") {
  EmulatorEnv emulator({}, "300ms");
  REQUIRE(emulator.ready());
  StackEnv stack(emulator, StackText("whole"));

  auto dry = stack.Up({"--dry-run"});
  INFO(dry.out << dry.err);
  REQUIRE(dry.exit_code == 0);
  CHECK(dry.out.find("cluster: create, waits for services") != std::string::npos);
  CHECK(dry.out.find("POST " + emulator.url() + "/v1/projects/p/locations/us-east5-b/clusters") != std::string::npos);
  CHECK(Mutations(emulator.Requests()) == 0);
  CHECK(Count(emulator.State(), "clusters") == 0);

  auto up = stack.Up({"--format", "json"});
  INFO(up.out << up.err);
  REQUIRE(up.exit_code == 0);
  const json result = json::parse(up.out);
  for (const auto& step : result["steps"]) {
    INFO(step.dump());
    // The emulator's APIs are enabled from the start: the services step has nothing to do.
    CHECK(step["state"] == (step["step"] == "services" ? "adopted" : "done"));
  }
  json state = emulator.State();
  CHECK(Count(state, "clusters") == 1);
  CHECK(NodePools(state) == 3);  // default-pool, v6e-16, cpu
  CHECK(Count(state, "repositories") == 1);
  const json ledger = Ledger(emulator, "whole");
  CHECK(Created(ledger, "cluster") == 1);
  CHECK(Created(ledger, "nodepool") == 2);
  CHECK(Created(ledger, "bucket") == 2);  // the stack's, and the project's Cloud Build source bucket
  CHECK(Created(ledger, "iam-member") == 1);
  CHECK(Created(ledger, "repository") == 1);
  CHECK(Created(ledger, "build") == 1);
  // Piped: one line per change of a step's state.
  CHECK(up.err.find("cluster: running") != std::string::npos);
  CHECK(up.err.find("nodepool/v6e-16: done") != std::string::npos);

  const size_t before = emulator.Requests().size();
  auto again = stack.Up({"--format", "json"});
  INFO(again.out << again.err);
  REQUIRE(again.exit_code == 0);
  const json adopted = json::parse(again.out);
  for (const auto& step : adopted["steps"]) CHECK(step["state"] == "adopted");
  CHECK(MutationsSince(emulator, before) == 0);

  auto status = emulator.Tputrain({"status", "-f", stack.file, "--format", "json"});
  INFO(status.out << status.err);
  REQUIRE(status.exit_code == 0);
  const json statuses = json::parse(status.out);
  for (const auto& step : statuses["steps"]) CHECK(step["state"] == "up");

  auto down = emulator.Tputrain({"down", "-f", stack.file, "--yes"});
  INFO(down.out << down.err);
  REQUIRE(down.exit_code == 0);
  state = emulator.State();
  CHECK(Count(state, "clusters") == 0);
  CHECK(Count(state, "repositories") == 0);
  const json buckets = state.value("buckets", json::object());
  for (const auto& [key, bucket] : buckets.items()) CHECK(key.find("whole-ckpt") == std::string::npos);
}

TEST_CASE("stack: a failed step skips what needs it, the rest finish and are ledgered; up again finishes",
          "[integration]") {
  // The repository's create is refused once: the image, which needs it, cannot be built.
  EmulatorEnv emulator({"--faults", "repositories.create=PERMISSION_DENIED@first:1"}, "300ms");
  REQUIRE(emulator.ready());
  StackEnv stack(emulator, StackText("faulty"));
  auto up = stack.Up({"--format", "json"});
  INFO(up.out << up.err);
  CHECK(up.exit_code == 1);
  std::map<std::string, std::string> states;
  const json ran = json::parse(up.out);
  for (const auto& step : ran["steps"]) states[step["step"].get<std::string>()] = step["state"].get<std::string>();
  CHECK(states["registry"] == "failed");
  CHECK(states["image"] == "skipped");
  CHECK(states["cluster"] == "done");
  CHECK(states["nodepool/v6e-16"] == "done");
  CHECK(states["nodepool/cpu"] == "done");
  CHECK(states["bucket"] == "done");
  CHECK(states["identity/default/ray-ksa"] == "done");
  const json ledger = Ledger(emulator, "faulty");
  CHECK(Created(ledger, "cluster") == 1);
  CHECK(Created(ledger, "nodepool") == 2);
  CHECK(Created(ledger, "repository") == 0);

  auto again = stack.Up({"--format", "json"});
  INFO(again.out << again.err);
  REQUIRE(again.exit_code == 0);
  const json finished = json::parse(again.out);
  for (const auto& step : finished["steps"]) {
    const std::string id = step["step"];
    CHECK(step["state"] == (id == "registry" || id == "image" ? "done" : "adopted"));
  }
  CHECK(Count(emulator.State(), "clusters") == 1);
  CHECK(Count(emulator.State(), "repositories") == 1);
  REQUIRE(emulator.Tputrain({"down", "-f", stack.file, "--yes"}).exit_code == 0);
}

TEST_CASE("stack: Ctrl-C in the middle, then up again, ends with one of each", "[integration]") {
  EmulatorEnv emulator({}, "2s");
  REQUIRE(emulator.ready());
  StackEnv stack(emulator, StackText("interrupted"));
  ProcessOptions options;
  options.argv = {tputrain::testing::TputrainBinary(), "up", "-f", stack.file, "--state-dir", emulator.state_dir()};
  options.env = emulator.Environment();
  tputrain::testing::ScopedProcess up(options);
  // Once the cluster is being made (its pools are not yet), interrupt.
  REQUIRE(
      tputrain::testing::WaitFor([&] { return Count(emulator.State(), "clusters") == 1; }, std::chrono::seconds(60)));
  kill(up.pid(), SIGINT);
  REQUIRE(tputrain::testing::WaitFor([&] { return !up.running(); }, std::chrono::seconds(60)));
  INFO(up.ReadOut() << up.ReadErr());
  CHECK(up.Stop() == 130);

  auto again = stack.Up();
  INFO(again.out << again.err);
  REQUIRE(again.exit_code == 0);
  const json state = emulator.State();
  CHECK(Count(state, "clusters") == 1);
  CHECK(NodePools(state) == 3);
  CHECK(Count(state, "repositories") == 1);
  // The build Ctrl-C cancelled (as gcloud cancels it) is history; one image was pushed.
  size_t succeeded = 0;
  const json builds = state.value("builds", json::object());
  for (const auto& [id, build] : builds.items()) succeeded += build.value("status", "") == "SUCCESS" ? 1 : 0;
  CHECK(succeeded == 1);
  CHECK(Count(state, "dockerImages") == 1);
  REQUIRE(emulator.Tputrain({"down", "-f", stack.file, "--yes"}).exit_code == 0);
  CHECK(Count(emulator.State(), "clusters") == 0);
}

TEST_CASE("stack: a pool of another shape than the file says is named, field by field, and nothing changes",
          "[integration]") {
  EmulatorEnv emulator({}, "300ms");
  REQUIRE(emulator.ready());
  StackEnv stack(emulator, StackText("reshaped"));
  REQUIRE(stack.Up().exit_code == 0);
  stack.Write(StackText("reshaped", "2"));
  const size_t before = emulator.Requests().size();
  auto changed = stack.Up();
  INFO(changed.out << changed.err);
  CHECK(changed.exit_code == 1);
  CHECK(changed.err.find("nodepool/cpu") != std::string::npos);
  CHECK(changed.err.find("initialNodeCount: want 2, have 1") != std::string::npos);
  CHECK(changed.err.find("--recreate") != std::string::npos);
  CHECK(MutationsSince(emulator, before) == 0);
  REQUIRE(emulator.Tputrain({"down", "-f", stack.file, "--yes"}).exit_code == 0);
}

TEST_CASE("stack: a tpu7x pool goes up through its workload policy and down with it", "[integration]") {
  EmulatorEnv emulator({}, "300ms");
  REQUIRE(emulator.ready());
  StackEnv stack(emulator,
                 "name: iron\n"
                 "project: p\n"
                 "location: us-central1-c\n"
                 "cluster:\n"
                 "  name: iw\n"
                 "  cluster-version: '1.34'\n"
                 "nodepools:\n"
                 "  - name: iron\n"
                 "    tpu-type: tpu7x-16\n");
  auto up = stack.Up({"--format", "json"});
  INFO(up.out << up.err);
  REQUIRE(up.exit_code == 0);
  json state = emulator.State();
  const std::string policy_key = "projects/p/regions/us-central1/resourcePolicies/iw-iron-wp";
  REQUIRE(state["resourcePolicies"].contains(policy_key));
  CHECK(state["resourcePolicies"][policy_key]["workloadPolicy"] ==
        json{{"acceleratorTopology", "2x2x2"}, {"type", "HIGH_THROUGHPUT"}});
  json pool;
  for (const auto& each : state["clusters"]["projects/p/locations/us-central1-c/clusters/iw"]["nodePools"]) {
    if (each["name"] == "iron") pool = each;
  }
  REQUIRE(pool.is_object());
  CHECK(pool["placementPolicy"] == json{{"policyName", "iw-iron-wp"}});
  CHECK_FALSE(pool["placementPolicy"].contains("tpuTopology"));
  CHECK(pool["initialNodeCount"] == 2);
  CHECK(Created(Ledger(emulator, "iron"), "workload-policy") == 1);

  // Again: the policy and the pool are adopted, nothing is sent but reads.
  const size_t before = emulator.Requests().size();
  auto again = stack.Up();
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  CHECK(MutationsSince(emulator, before) == 0);

  auto down = emulator.Tputrain({"down", "-f", stack.file, "--yes"});
  INFO(down.out << down.err);
  REQUIRE(down.exit_code == 0);
  state = emulator.State();
  CHECK(Count(state, "clusters") == 0);
  CHECK(Count(state, "resourcePolicies") == 0);
}

TEST_CASE("stack: TPU VMs go up beside the rest, are adopted again, named when they differ, and go down",
          "[integration]") {
  EmulatorEnv emulator({}, "300ms");
  REQUIRE(emulator.ready());
  auto text = [](const std::string& type) {
    return "name: vms\n"
           "project: p\n"
           "location: us-east5-b\n"
           "bucket:\n"
           "  name: vms-data\n"
           "tpu-vms:\n"
           "  - name: slice-a\n"
           "    accelerator-type: " +
           type +
           "\n"
           "  - name: slice-b\n"
           "    accelerator-type: v6e-8\n"
           "    zone: us-east5-a\n"
           "    capacity: spot\n";
  };
  StackEnv stack(emulator, text("v5p-8"));
  auto up = stack.Up({"--format", "json"});
  INFO(up.out << up.err);
  REQUIRE(up.exit_code == 0);
  json state = emulator.State();
  REQUIRE(Count(state, "tpuNodes") == 2);
  const json b = state["tpuNodes"]["projects/p/locations/us-east5-a/nodes/slice-b"];
  CHECK(b["acceleratorType"] == "v6e-8");
  CHECK(b["schedulingConfig"]["spot"] == true);
  CHECK(b["labels"]["tputrain-run"] == "vms");
  CHECK(Created(Ledger(emulator, "vms"), "tpu-vm") == 2);

  // Again: only reads.
  const size_t before = emulator.Requests().size();
  auto again = stack.Up();
  INFO(again.out << again.err);
  REQUIRE(again.exit_code == 0);
  CHECK(MutationsSince(emulator, before) == 0);

  // Another type is named, and nothing changes.
  stack.Write(text("v5p-16"));
  const size_t unchanged = emulator.Requests().size();
  auto differs = stack.Up();
  INFO(differs.out << differs.err);
  CHECK(differs.exit_code == 1);
  CHECK(differs.err.find("tpu-vm/slice-a") != std::string::npos);
  CHECK(differs.err.find("v5p-16") != std::string::npos);
  CHECK(MutationsSince(emulator, unchanged) == 0);

  auto down = emulator.Tputrain({"down", "-f", stack.file, "--yes"});
  INFO(down.out << down.err);
  REQUIRE(down.exit_code == 0);
  state = emulator.State();
  CHECK(Count(state, "tpuNodes") == 0);
  CHECK(Count(state, "buckets") == 0);
}

TEST_CASE("stack: a bad file is one line and exit 2, before any call", "[integration]") {
  EmulatorEnv emulator({}, "300ms");
  REQUIRE(emulator.ready());
  const std::string good = StackText("refused");
  const std::vector<std::pair<std::string, std::string>> bad = {
      {good + "clusterz: {}\n", "clusterz: unknown key"},
      {good + "ttl: [1]\n", "ttl: expected a string"},
      {good + "workload:\n  submit: {model: llama3-8b, steps: -1}\n", "workload.submit.steps: expected 1 to"},
      {good +
           "apply:\n  manifests: [{apiVersion: v1, kind: ServiceAccount, metadata: {name: a}}]\n  needs: [workload]\n"
           "workload:\n  submit: {model: maxtext-cpu-smoke}\n",
       "a cycle: "},
      {good + "# " + std::string(2 * 1024 * 1024, 'x') + "\n", "larger than"}};
  StackEnv stack(emulator, good);
  for (const auto& [text, expected] : bad) {
    stack.Write(text);
    auto refused = stack.Up();
    INFO(expected << "\n" << refused.err);
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find(expected) != std::string::npos);
    CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
  }
  // --skip names a step of the file or a kind of step; a typo is refused like a bad key.
  stack.Write(good);
  auto typo = stack.Up({"--skip", "workolad"});
  INFO(typo.err);
  CHECK(typo.exit_code == 2);
  CHECK(typo.err.find("--skip: no step workolad in ") != std::string::npos);
  CHECK(Calls(emulator.Requests(), false) == 0);
  // A kind this file has no step of (apply, workload) is nothing to leave out: the plan goes on.
  auto kinds = stack.Up({"--skip", "apply,workload", "--dry-run"});
  INFO(kinds.out << kinds.err);
  CHECK(kinds.exit_code == 0);
}

}  // namespace
}  // namespace tputrain::workflow::testing
