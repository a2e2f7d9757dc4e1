// Stack files: the graph a good one makes, and each bad one refused with one line (the file,
// the line, the key path) before any call.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "testing/fake_clock.h"
#include "tputrain/core/error.h"
#include "tputrain/workflow/stack.h"

namespace tputrain::workflow {
namespace {

namespace fs = std::filesystem;

struct Files {
  fs::path dir = fs::temp_directory_path() / ("tputrain-stack-test-" + std::to_string(getpid()));
  testing::FakeClock clock;
  core::Env env{{{"PROJECT", "my-project"}}};

  Files() { fs::create_directories(dir); }
  ~Files() { fs::remove_all(dir); }

  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << text;
    return (dir / name).string();
  }
  core::Result<Stack> Load(const std::string& text) {
    return LoadStack(Write("stack.yaml", text), env, {clock, {std::string(TPUTRAIN_SOURCE_DIR) + "/templates"}});
  }
  // The one line a bad file gets, with the file's path left out.
  std::string Refusal(const std::string& text) {
    auto loaded = Load(text);
    REQUIRE_FALSE(loaded);
    CHECK(core::IsUsageError(loaded.error()));
    CHECK(loaded.error().message.find('\n') == std::string::npos);
    std::string message = loaded.error().message;
    const std::string prefix = (dir / "stack.yaml").string() + ":";
    if (message.rfind(prefix, 0) == 0) message = message.substr(prefix.size());
    return message;
  }
};

const char kTrain[] = R"(name: train-001
project: ${PROJECT}
location: ${ZONE:-us-east5-b}
services: [container.googleapis.com, storage.googleapis.com]
cluster:
  name: ray-tpu
  ray-operator: true
  workload-identity: true
  machine-type: n1-standard-16
  tpu-type: v6e-16
bucket:
  name: ${PROJECT}-maxtext
  bucket-location: us-east5
identity:
  - ksa: default/ray-ksa
    bucket: ${PROJECT}-maxtext
    role: roles/storage.objectUser
registry:
  name: tputrain
image:
  render: maxtext-ray-image
  set: [TPU_TYPE=v6e-16]
  tag: us-east5-docker.pkg.dev/${PROJECT}/tputrain/ray-maxtext:latest
apply:
  manifests:
    - apiVersion: v1
      kind: ServiceAccount
      metadata: {name: ray-ksa, namespace: default}
workload:
  submit:
    model: llama3-8b
    raycluster-set: [KSA_NAME=ray-ksa]
)";

std::vector<std::string> Needs(const Stack& stack, const std::string& id) {
  const StackStep* step = stack.Find(id);
  REQUIRE(step != nullptr);
  return step->needs;
}

bool Contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

TEST_CASE("stack: seed 001's path as steps, each waiting only for what it needs") {
  Files files;
  auto stack = files.Load(kTrain);
  REQUIRE(stack);
  CHECK(stack->name == "train-001");
  CHECK(stack->project == "my-project");
  CHECK(stack->location == "us-east5-b");
  std::vector<std::string> ids;
  for (const auto& step : stack->steps) ids.push_back(step.id);
  for (const char* id : {"services", "cluster", "nodepool/v6e-16", "bucket", "identity/default/ray-ksa", "registry",
                         "image", "apply", "workload"}) {
    CHECK(Contains(ids, id));
  }
  // The image build goes beside the cluster; bucket, registry and identity beside both.
  CHECK(Needs(*stack, "cluster") == std::vector<std::string>{"services"});
  CHECK(Needs(*stack, "image") == std::vector<std::string>{"registry", "services"});
  CHECK(Needs(*stack, "identity/default/ray-ksa") == std::vector<std::string>{"bucket", "services"});
  CHECK(Needs(*stack, "nodepool/v6e-16") == std::vector<std::string>{"cluster", "services"});
  CHECK(Needs(*stack, "apply") == std::vector<std::string>{"cluster", "services"});
  const auto workload = Needs(*stack, "workload");
  for (const char* id : {"cluster", "nodepool/v6e-16", "bucket", "image", "apply", "identity/default/ray-ksa"}) {
    CHECK(Contains(workload, id));
  }
  // An order where each step comes after what it needs.
  for (size_t i = 0; i < stack->steps.size(); ++i) {
    for (const auto& need : stack->steps[i].needs) {
      auto at = std::find(ids.begin(), ids.end(), need) - ids.begin();
      CHECK(static_cast<size_t>(at) < i);
    }
  }
  // The pool is the cluster's --tpu-type pool, as `cluster create --tpu-type` makes it.
  const StackStep* pool = stack->Find("nodepool/v6e-16");
  REQUIRE(pool->nodepool);
  REQUIRE(pool->nodepool->pools.size() == 1);
  CHECK(pool->nodepool->pools[0].machine_type == "ct6e-standard-4t");
  CHECK(pool->nodepool->pools[0].tpu_topology == "4x4");
  CHECK(stack->Find("cluster")->cluster->spec.workload_pool == "my-project.svc.id.goog");
  CHECK(stack->Find("cluster")->cluster->pools.empty());
}

TEST_CASE("stack: a value that did not change keeps its fingerprint; one that did changes it") {
  Files files;
  auto first = files.Load(kTrain);
  auto second = files.Load(kTrain);
  REQUIRE(first);
  REQUIRE(second);
  CHECK(first->Find("workload")->fingerprint == second->Find("workload")->fingerprint);
  std::string changed = kTrain;
  changed.replace(changed.find("model: llama3-8b"), 16, "model: llama3-8b\n    steps: 5");
  auto third = files.Load(changed);
  REQUIRE(third);
  CHECK(first->Find("workload")->fingerprint != third->Find("workload")->fingerprint);
}

TEST_CASE("stack: bad files are refused with one line naming the line and the key") {
  Files files;
  const std::string head = "name: s\nproject: p\nlocation: us-east5-b\n";
  SECTION("an unknown key, with the one it was likely meant to be") {
    CHECK(files.Refusal(head + "cluster:\n  name: c\n  num-node: 3\n") ==
          "6: cluster.num-node: unknown key; did you mean 'num-nodes'?");
    CHECK(files.Refusal(head + "clusters: {}\n").rfind("4: clusters: unknown key", 0) == 0);
  }
  SECTION("a value of the wrong type") {
    CHECK(files.Refusal(head + "cluster:\n  name: c\n  num-nodes: three\n") ==
          "6: cluster.num-nodes: expected an integer, got 'three'");
    CHECK(files.Refusal(head + "cluster:\n  name: c\n  gcs-fuse: \"true\"\n") ==
          "6: cluster.gcs-fuse: expected true or false, got 'true'");
    CHECK(files.Refusal(head + "nodepools: {name: p}\n") == "4: nodepools: expected a list, got a map");
  }
  SECTION("a value the matching flag would refuse, said as the flag says it") {
    CHECK(files.Refusal(head + "cluster:\n  name: Bad_Name\n").rfind("5: cluster.name: ", 0) == 0);
    CHECK(files.Refusal(head + "cluster:\n  name: c\n  num-nodes: -3\n").rfind("6: cluster.num-nodes: ", 0) == 0);
    CHECK(files.Refusal(head + "cluster:\n  name: c\n  tpu-type: v9z-16\n").rfind("6: cluster.tpu-type: ", 0) == 0);
    CHECK(files.Refusal(head + "nodepools:\n  - name: p\n    cluster: c\n    num-slices: 0\n") ==
          "7: nodepools[0].num-slices: expected 1 to 64, got 0");
    CHECK(files.Refusal(head + "bucket: {name: gs://google-ckpt}\n").rfind("4: bucket.name: ", 0) == 0);
    CHECK(files.Refusal(head + "identity:\n  - ksa: a/b/c\n    bucket: x\n    role: roles/x\n")
              .rfind("5: identity[0].ksa: ", 0) == 0);
    CHECK(files.Refusal(head + "cluster: {name: c}\nworkload:\n  submit: {model: no-such-model}\n")
              .rfind("6: workload.submit.model: ", 0) == 0);
    CHECK(files.Refusal("name: Nightly\nproject: p\nlocation: us-east5-b\n").rfind("1: name: ", 0) == 0);
    CHECK(files.Refusal(head + "image: {dir: ., tag: gcr.io/p/i:v1}\n").rfind("4: image.tag: ", 0) == 0);
  }
  SECTION("a step that needs one the file does not have, or a cycle") {
    CHECK(files.Refusal(head + "bucket:\n  name: ckpt-x\n  needs: [registry]\n") ==
          "6: bucket.needs: no step registry in this stack");
    const std::string cycle = files.Refusal(head +
                                            "bucket:\n  name: ckpt-x\n  needs: [registry]\n"
                                            "registry:\n  name: r\n  needs: [bucket]\n");
    CHECK(cycle.find("a cycle: ") != std::string::npos);
    CHECK(cycle.find("bucket") != std::string::npos);
    CHECK(cycle.find("registry") != std::string::npos);
  }
  SECTION("variables: unset, holding a newline, or malformed") {
    CHECK(files.Refusal(head + "bucket:\n  name: ${NOPE}\n") ==
          "5: bucket.name: ${NOPE} is not set (set it, or write ${NOPE:-default})");
    files.env.Set("BAD", "x\ny");
    CHECK(files.Refusal(head + "bucket:\n  name: ${BAD}\n") == "5: bucket.name: ${BAD} holds a newline");
    CHECK(files.Refusal(head + "bucket:\n  name: ${1X}\n").find("expected ${NAME}") != std::string::npos);
  }
  SECTION("a file the loader refuses: not YAML, not UTF-8, too large") {
    CHECK(files.Refusal(head + "cluster: [\n").find("not valid YAML") != std::string::npos);
    CHECK(files.Refusal(head + "bucket: {name: \"a\xff\"}\n") == "4: bucket.name: not UTF-8");
    const auto big = files.Refusal(head + "# " + std::string(2 * 1024 * 1024, 'x') + "\n");
    CHECK(big.find("larger than") != std::string::npos);
  }
  SECTION("the required keys") { CHECK(files.Refusal("name: s\nproject: p\n") == "1: missing key 'location'"); }
}

TEST_CASE("stack: ${VAR:-default}, $${ and a plain scalar typed after substitution") {
  Files files;
  files.env.Set("NODES", "5");
  auto stack = files.Load(
      "name: s\nproject: p\nlocation: us-east5-b\n"
      "cluster:\n  name: c\n  num-nodes: ${NODES}\n  cluster-version: ${VERSION:-1.32.4-gke.1415000}\n"
      "registry:\n  name: r\n  description: \"costs $${AMOUNT}\"\n");
  REQUIRE(stack);
  CHECK(stack->Find("cluster")->cluster->spec.default_pool.node_count == 5);
  CHECK(stack->Find("cluster")->cluster->spec.cluster_version == "1.32.4-gke.1415000");
  CHECK(stack->Find("registry")->registry_spec.description == "costs ${AMOUNT}");
}

TEST_CASE("stack: a served model is serve up's request, each engine's keys refused for the others") {
  Files files;
  const std::string head = "name: s\nproject: p\nlocation: us-east5\ncluster: {name: c}\nbucket: {name: ckpt-x}\n";
  SECTION("JetStream (the default engine): the stack's cluster and bucket, the model's template") {
    auto stack = files.Load(head + "workload:\n  serve:\n    model: llama3.1-405b\n    create-nodepool: true\n");
    REQUIRE(stack);
    const StackWorkload& workload = *stack->Find("workload")->workload;
    CHECK(workload.kind == WorkloadKind::kServeJetStream);
    CHECK(workload.cluster.cluster == "c");
    REQUIRE(workload.jetstream);
    CHECK(workload.jetstream->model == "llama3.1-405b");
    CHECK(workload.jetstream->create_nodepool);
    CHECK(workload.jetstream->configuration.at("BUCKET") == "ckpt-x");
    CHECK(Contains(stack->Find("workload")->needs, "cluster"));
  }
  SECTION("vLLM: the slice planned for the model, and a token file read but never in the fingerprint") {
    files.Write("hf-token", "hf_secretTokenValue1\n");
    auto stack = files.Load(head +
                            "workload:\n  serve:\n    engine: vllm\n    model: llama3-8b\n"
                            "    hf-token-file: " +
                            (files.dir / "hf-token").string() + "\n");
    REQUIRE(stack);
    const StackStep& step = *stack->Find("workload");
    CHECK(step.workload->kind == WorkloadKind::kServeVllm);
    REQUIRE(step.workload->vllm);
    CHECK(step.workload->vllm->plan.model == "llama3-8b");
    CHECK(step.fingerprint.find("hf_secret") == std::string::npos);
    CHECK(GraphJson(*stack).dump().find("hf_secret") == std::string::npos);
  }
  SECTION("Saxml: a preset chooses it, its replicas and JobSet manifest as serve up's flags say") {
    auto stack = files.Load(head +
                            "workload:\n  serve:\n    model: saxml-175b-test\n    replicas: 3\n"
                            "    install-operators: true\n    jobset-manifest: /copies/jobset.yaml\n");
    if (!stack) FAIL(stack.error().message);
    const StackWorkload& workload = *stack->Find("workload")->workload;
    CHECK(workload.kind == WorkloadKind::kServeSaxml);
    REQUIRE(workload.saxml);
    CHECK(workload.saxml->model.replicas == 3);
    CHECK(workload.saxml->tpu_type == "v5litepod-32");
    CHECK(workload.saxml->install_operators);
    CHECK(workload.saxml->configuration.at("BUCKET") == "ckpt-x");
    CHECK(workload.jobset_manifest == "/copies/jobset.yaml");
    CHECK(files.Refusal(head + "workload:\n  serve:\n    model: saxml-175b-test\n    replicas: 0\n")
              .rfind("9: workload.serve.replicas: ", 0) == 0);
    CHECK(files
              .Refusal(head + "workload:\n  serve:\n    engine: saxml\n    model: mine\n"
                              "    model-path: saxml.server.lm.params.Mine\n")
              .rfind("8: workload.serve.tpu-type: needed with", 0) == 0);
    CHECK(files.Refusal(head + "workload:\n  serve:\n    model: saxml-175b-test\n    checkpoint: /local\n")
              .rfind("9: workload.serve.checkpoint: expected gs://BUCKET/PATH or None", 0) == 0);
  }
  SECTION("a key another engine takes, a model no engine here serves, a timeout, two workloads") {
    CHECK(files.Refusal(head + "workload:\n  serve:\n    model: llama3.1-405b\n    hf-token-file: /t\n") ==
          "9: workload.serve.hf-token-file: only for engine vllm");
    CHECK(files.Refusal(head + "workload:\n  serve:\n    model: llama3.1-405b\n    hf-config: config.json\n") ==
          "9: workload.serve.hf-config: only for engine vllm");
    CHECK(files.Refusal(head + "workload:\n  serve:\n    engine: vllm\n    model: llama3-8b\n"
                               "    checkpoint: gs://b/c\n") ==
          "10: workload.serve.checkpoint: only for engine jetstream or saxml");
    CHECK(files.Refusal(head + "workload:\n  serve:\n    model: llama3.1-405b\n    replicas: 2\n") ==
          "9: workload.serve.replicas: only for engine saxml");
    CHECK(files.Refusal(head + "workload:\n  serve:\n    engine: vllm\n    model: llama3-8b\n"
                               "    jobset-manifest: js.yaml\n") ==
          "10: workload.serve.jobset-manifest: only for engine saxml");
    CHECK(files.Refusal(head + "workload:\n  serve:\n    model: llama3.1-405b\n    timeout: soon\n")
              .rfind("9: workload.serve.timeout: ", 0) == 0);
    CHECK(files.Refusal(head + "workload:\n  serve:\n    model: llama3.1-405b\n    checkpoint: /local\n") ==
          "9: workload.serve.checkpoint: expected gs://BUCKET/PATH, got '/local'");
    CHECK(files.Refusal(head + "workload:\n  serve: {model: llama3.1-405b}\n  submit: {model: llama3-8b}\n")
              .find("workload: expected one of its keys: submit, serve") != std::string::npos);
  }
}

TEST_CASE("stack: a pool where the zone catalog has no such TPU is refused unless skip-zone-check, as the flag") {
  Files files;
  const std::string head = "name: s\nproject: p\nlocation: us-east5-b\ncluster: {name: c}\n";
  const std::string refused =
      files.Refusal(head + "nodepools:\n  - name: iw\n    tpu-type: tpu7x-128\n    node-version: 1.34.1-gke.1000\n");
  CHECK(refused.rfind("6: nodepools[0]: location: tpu7x-128 is not offered in zone us-east5-b", 0) == 0);
  auto passed = files.Load(head +
                           "nodepools:\n  - name: iw\n    tpu-type: tpu7x-128\n    placement-policy: my-wp\n"
                           "    skip-zone-check: true\n");
  if (!passed) FAIL(passed.error().message);
  CHECK(passed->Find("nodepool/iw") != nullptr);
  CHECK(files.Refusal("name: s\nproject: p\nlocation: us-east5-b\ncluster:\n  name: c\n  tpu-type: tpu7x-128\n")
            .find("not offered") != std::string::npos);
}

const char kRayOnTpuVms[] = R"(name: ray-004
project: p
location: us-east5-b
tpu-vms:
  - name: ray-v6e
    accelerator-type: v6e-16
    ray: true
    ray-start-args: --num-cpus=8
    iap-firewall: create
workload:
  job:
    tpu-vm: ray-v6e
    command: [python, jax_hosts.py]
    entrypoint-resources: {TPU: 4}
)";

TEST_CASE("stack: TPU VMs with Ray and a Ray job on them, as tpu-vm create and job submit take their flags") {
  Files files;
  auto stack = files.Load(kRayOnTpuVms);
  if (!stack) FAIL(stack.error().message);
  const StackStep* vm = stack->Find("tpu-vm/ray-v6e");
  REQUIRE(vm != nullptr);
  CHECK(vm->kind == StepKind::kTpuVm);
  REQUIRE(vm->tpu_vm);
  CHECK(vm->tpu_vm->zone == "us-east5-b");
  CHECK(vm->tpu_vm->hosts == 4);
  CHECK(vm->tpu_vm->ray);
  // The token the hosts boot with is made once, at load, and is a secret the caller holds.
  REQUIRE(vm->tpu_vm->ray_token.size() >= 16);
  CHECK(stack->Secrets() == std::vector<std::string>{vm->tpu_vm->ray_token});
  const StackStep* workload = stack->Find("workload");
  REQUIRE(workload != nullptr);
  CHECK(workload->workload->kind == WorkloadKind::kRayJob);
  CHECK(workload->workload->tpu_vm->node == "ray-v6e");
  CHECK(workload->workload->tpu_vm->zone == "us-east5-b");
  CHECK(Contains(workload->needs, "tpu-vm/ray-v6e"));
  CHECK(workload->workload->job->command == std::vector<std::string>{"python", "jax_hosts.py"});

  // MaxText on the TPU VM's own Ray: no cluster needed, a RayCluster's keys refused.
  const std::string head = "name: s\nproject: p\nlocation: us-east5-b\n";
  auto on_vm = files.Load(head + "workload:\n  submit:\n    model: llama3-8b\n    tpu-vm: ray-v6e\n");
  if (!on_vm) FAIL(on_vm.error().message);
  CHECK(on_vm->Find("workload")->workload->tpu_vm->node == "ray-v6e");
  CHECK_FALSE(on_vm->Find("workload")->workload->submit.raycluster);
  CHECK(files.Refusal(head + "workload:\n  submit:\n    model: llama3-8b\n    tpu-vm: v\n    queue: q\n") ==
        "8: workload.submit.queue: a RayCluster's, not with tpu-vm");

  // Each refused where the file says it, in the command's words.
  const std::string vms = head + "tpu-vms:\n  - name: v\n    accelerator-type: ";
  CHECK(files.Refusal(vms + "v6e-16\n    setup: s.sh\n").find("7: tpu-vms[0].setup: only with --ray") == 0);
  CHECK(files.Refusal(vms + "v9z-8\n").find("6: tpu-vms[0].accelerator-type: ") == 0);
  CHECK(files.Refusal(vms + "v6e-16\n    num-slices: 0\n") == "7: tpu-vms[0].num-slices: expected 1 to 256, got 0");
  CHECK(files.Refusal(vms + "v6e-16\n    iap-firewall: open\n").find("7: tpu-vms[0].iap-firewall: ") == 0);
  CHECK(files
            .Refusal("name: s\nproject: p\nlocation: us-east5\ntpu-vms:\n  - name: v\n    accelerator-type: "
                     "v6e-16\n")
            .find("5: tpu-vms[0]: a TPU VM is made in a zone, and us-east5 is not one") == 0);
  const std::string job = head + "workload:\n  job:\n    tpu-vm: v\n";
  CHECK(files.Refusal(job + "    command: []\n") ==
        "7: workload.job.command: expected the entrypoint: [python, job.py]");
  CHECK(files.Refusal(job + "    command: [python, j.py]\n    working-dir: nowhere\n")
            .find("8: workload.job.working-dir: expected a directory") == 0);
  CHECK(files.Refusal(job + "    command: [python, j.py]\n    entrypoint-num-cpus: -3\n")
            .find("8: workload.job.entrypoint-num-cpus: ") == 0);
  CHECK(files.Refusal(job + "    command: [python, j.py]\n    submission-id: a/b\n")
            .find("8: workload.job.submission-id: expected letters") == 0);
  CHECK(files.Refusal(head + "workload:\n  job:\n    command: [python, j.py]\n").find("workload.job: ") !=
        std::string::npos);  // tpu-vm is required
}

TEST_CASE("stack: every stack file in examples/ loads with only PROJECT set, and with its settings changed") {
  testing::FakeClock clock;
  const StackLoadContext context{clock, {std::string(TPUTRAIN_SOURCE_DIR) + "/templates"}};
  size_t stacks = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(TPUTRAIN_SOURCE_DIR) / "examples")) {
    if (entry.path().extension() != ".yaml") continue;
    ++stacks;
    INFO(entry.path());
    auto plain = LoadStack(entry.path().string(), core::Env{{{"PROJECT", "my-project"}}}, context);
    if (!plain) FAIL(plain.error().message);
    auto changed = LoadStack(entry.path().string(),
                             core::Env{{{"PROJECT", "my-project"},
                                        {"RUN", "nightly-7"},
                                        {"ZONE", "us-central1-b"},
                                        {"REGION", "us-central1"},
                                        {"CLUSTER", "other"},
                                        {"STEPS", "5"}}},
                             context);
    if (!changed) FAIL(changed.error().message);
    CHECK(changed->name == "nightly-7");
  }
  CHECK(stacks >= 1);
}

TEST_CASE("stack: the shipped schema is the one built in, and names every key the loader reads") {
  std::ifstream shipped(std::string(TPUTRAIN_SOURCE_DIR) + "/data/stack.schema.json");
  std::string text((std::istreambuf_iterator<char>(shipped)), std::istreambuf_iterator<char>());
  CHECK(text == StackSchemaJson());
  auto schema = nlohmann::json::parse(text);
  CHECK(schema["additionalProperties"] == false);
  for (const char* def : {"cluster", "nodepool", "tpu-vm", "bucket", "service-account", "identity", "registry", "image",
                          "apply", "workload", "submit", "job"}) {
    INFO(def);
    CHECK(schema["$defs"][def]["additionalProperties"] == false);
  }
}

}  // namespace
}  // namespace tputrain::workflow
