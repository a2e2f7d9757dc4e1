// The built-in templates rendered with the seeds' values: the facts each workload depends on,
// and the upstream defects they must not carry.
#include <filesystem>
#include <fstream>

#include <yaml-cpp/yaml.h>
#include <catch2/catch.hpp>

#include "template_values.h"
#include "tputrain/render/render.h"

using tputrain::render::Rendered;
using tputrain::render::RenderRequest;
using tputrain::render::RenderTemplate;

namespace {

const std::string kTemplates = std::string(TPUTRAIN_SOURCE_DIR) + "/templates";
const std::string kSeedValues = std::string(TPUTRAIN_SOURCE_DIR) + "/tests/render/seed-values/";

Rendered Render(const std::string& name, std::vector<std::string> sets = {}) {
  RenderRequest request;
  request.slice_values = tputrain::workflow::SliceTemplateValues;
  request.template_name = name;
  request.template_dirs = {kTemplates};
  request.values_files = {kSeedValues + name + ".yaml"};
  request.sets = std::move(sets);
  auto rendered = RenderTemplate(request);
  INFO(name << ": " << (rendered ? "" : rendered.error().message));
  REQUIRE(rendered);
  return *rendered;
}

std::vector<YAML::Node> Objects(const Rendered& rendered) {
  std::vector<YAML::Node> objects;
  for (const auto& file : rendered.files) {
    if (!file.yaml) continue;
    for (auto& node : YAML::LoadAll(file.text)) {
      if (!node.IsNull()) objects.push_back(node);
    }
  }
  return objects;
}

YAML::Node Find(const std::vector<YAML::Node>& objects, const std::string& kind) {
  for (const auto& object : objects) {
    if (object["kind"].Scalar() == kind) return object;
  }
  FAIL("no " << kind);
  return {};
}

const std::string& Text(const Rendered& rendered, const std::string& file) {
  for (const auto& f : rendered.files) {
    if (f.name == file) return f.text;
  }
  FAIL("no file " << file);
  static const std::string none;
  return none;
}

YAML::Node Container(const YAML::Node& pod_spec, const std::string& name) {
  for (const auto& container : pod_spec["containers"]) {
    if (container["name"].Scalar() == name) return container;
  }
  FAIL("no container " << name);
  return {};
}

std::vector<std::string> Args(const YAML::Node& container) {
  std::vector<std::string> args;
  for (const auto& arg : container["args"]) args.push_back(arg.Scalar());
  return args;
}

bool HasTpuToleration(const YAML::Node& pod_spec) {
  for (const auto& toleration : pod_spec["tolerations"]) {
    if (toleration["key"].Scalar() == "google.com/tpu" && toleration["operator"].Scalar() == "Exists") return true;
  }
  return false;
}

}  // namespace

TEST_CASE("every built-in template has a seed values file and renders with it") {
  auto templates = tputrain::render::ListTemplates({kTemplates});
  REQUIRE(templates);
  CHECK(templates->size() == 9);
  for (const auto& summary : *templates) {
    INFO(summary.name);
    CHECK(std::filesystem::exists(kSeedValues + summary.name + ".yaml"));
    auto rendered = Render(summary.name);
    CHECK_FALSE(rendered.files.empty());
  }
}

TEST_CASE("raycluster-maxtext: head ports, TPU worker group and bucket for v6e 4x4") {
  auto objects = Objects(Render("raycluster-maxtext"));
  REQUIRE(objects.size() == 1);
  const auto cluster = objects[0];
  CHECK(cluster["apiVersion"].Scalar() == "ray.io/v1");
  const auto head = cluster["spec"]["headGroupSpec"];
  CHECK(head["rayStartParams"].IsMap());
  CHECK(head["rayStartParams"].size() == 0);
  std::map<std::string, int> ports;
  for (const auto& port : Container(head["template"]["spec"], "ray-head")["ports"]) {
    ports[port["name"].Scalar()] = port["containerPort"].as<int>();
  }
  CHECK(ports == std::map<std::string, int>{{"gcs-server", 6379}, {"dashboard", 8265}, {"client", 10001}});
  const auto group = cluster["spec"]["workerGroupSpecs"][0];
  CHECK(group["rayStartParams"].IsMap());
  CHECK(group["replicas"].Scalar() == "1");
  CHECK(group["numOfHosts"].Scalar() == "4");
  const auto pod = group["template"]["spec"];
  CHECK(pod["serviceAccountName"].Scalar() == "ray-maxtext-ksa");
  CHECK(pod["nodeSelector"]["cloud.google.com/gke-tpu-accelerator"].Scalar() == "tpu-v6e-slice");
  CHECK(pod["nodeSelector"]["cloud.google.com/gke-tpu-topology"].Scalar() == "4x4");
  const auto worker = Container(pod, "ray-worker");
  const auto tpu = worker["resources"]["limits"]["google.com/tpu"];
  CHECK(tpu.Scalar() == "4");
  CHECK(tpu.Tag() == "!");  // quoted: stays the string "4"
  CHECK(worker["resources"]["requests"]["google.com/tpu"].Scalar() == "4");
  bool pjrt = false;
  for (const auto& env : worker["env"])
    pjrt = pjrt || (env["name"].Scalar() == "ENABLE_PJRT_COMPATIBILITY" && env["value"].Tag() == "!");
  CHECK(pjrt);
  std::map<std::string, std::string> mounts;
  for (const auto& mount : worker["volumeMounts"]) mounts[mount["name"].Scalar()] = mount["mountPath"].Scalar();
  CHECK(mounts == std::map<std::string, std::string>{{"gcs-fuse-csi-ephemeral", "/data"}, {"dshm", "/dev/shm"}});
  bool bucket = false;
  for (const auto& volume : pod["volumes"]) {
    if (volume["csi"]) {
      CHECK(volume["csi"]["driver"].Scalar() == "gcsfuse.csi.storage.gke.io");
      bucket = volume["csi"]["volumeAttributes"]["bucketName"].Scalar() == "my-project-maxtext";
    }
  }
  CHECK(bucket);
}

// The placement rule (notes/placement.md), as a scheduler reads it: required pod affinity and
// anti-affinity over the node pool, keyed by KubeRay's replica label with matchLabelKeys and
// mismatchLabelKeys, and that key nowhere in labelSelector (the API server refuses the pod).
const char* const kSlicePlacement = R"(
podAffinity:
  requiredDuringSchedulingIgnoredDuringExecution:
    - labelSelector: {matchLabels: {ray.io/node-type: worker}}
      matchLabelKeys: [ray.io/worker-group-replica-name]
      topologyKey: TOPOLOGY_KEY
podAntiAffinity:
  requiredDuringSchedulingIgnoredDuringExecution:
    - labelSelector: {matchLabels: {ray.io/node-type: worker}}
      mismatchLabelKeys: [ray.io/worker-group-replica-name]
      topologyKey: TOPOLOGY_KEY
)";

std::string Placement(const std::string& topology_key) {
  std::string text = kSlicePlacement;
  for (auto at = text.find("TOPOLOGY_KEY"); at != std::string::npos; at = text.find("TOPOLOGY_KEY")) {
    text.replace(at, std::string("TOPOLOGY_KEY").size(), topology_key);
  }
  return text;
}

// The node's content in one form, whatever its YAML style (block or flow, quoted or not), keys in
// their order: two nodes that say the same thing read the same.
std::string Canonical(const YAML::Node& node) {
  std::string text;
  switch (node.Type()) {
    case YAML::NodeType::Map:
      text = "{";
      for (const auto& item : node) text += Canonical(item.first) + ": " + Canonical(item.second) + "; ";
      return text + "}";
    case YAML::NodeType::Sequence:
      text = "[";
      for (const auto& item : node) text += Canonical(item) + "; ";
      return text + "]";
    case YAML::NodeType::Scalar:
      return node.Scalar();
    default:
      return "~";
  }
}

TEST_CASE("raycluster-maxtext keeps every slice on one node pool: the placement stanza exactly") {
  for (const auto& [sets, key] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{}, "cloud.google.com/gke-nodepool"},
           {{"TPU_TYPE=v5litepod-32", "NUM_SLICES=2"}, "cloud.google.com/gke-nodepool"},
           // A single-host slice is one node, and one pool of them holds several slices.
           {{"TPU_TYPE=v6e-4", "NUM_SLICES=2"}, "kubernetes.io/hostname"}}) {
    INFO(key);
    auto objects = Objects(Render("raycluster-maxtext", sets));
    const auto pod = objects[0]["spec"]["workerGroupSpecs"][0]["template"]["spec"];
    CHECK(Canonical(pod["affinity"]) == Canonical(YAML::Load(Placement(key))));
    for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
      const auto selector = pod["affinity"][kind]["requiredDuringSchedulingIgnoredDuringExecution"][0]["labelSelector"];
      CHECK_FALSE(selector["matchLabels"]["ray.io/worker-group-replica-name"]);
      CHECK_FALSE(selector["matchExpressions"]);
    }
  }
  // The head is not a slice: it goes where the scheduler likes.
  auto objects = Objects(Render("raycluster-maxtext"));
  CHECK_FALSE(objects[0]["spec"]["headGroupSpec"]["template"]["spec"]["affinity"]);
}

TEST_CASE("raycluster-maxtext scales with the TPU type and number of slices") {
  auto objects = Objects(Render("raycluster-maxtext", {"TPU_TYPE=v5litepod-32", "NUM_SLICES=2"}));
  const auto group = objects[0]["spec"]["workerGroupSpecs"][0];
  CHECK(group["replicas"].Scalar() == "2");
  CHECK(group["minReplicas"].Scalar() == "2");
  CHECK(group["numOfHosts"].Scalar() == "8");
  CHECK(group["template"]["spec"]["nodeSelector"]["cloud.google.com/gke-tpu-topology"].Scalar() == "4x8");
}

TEST_CASE("maxtext-ray-image: the trainer's ScalingConfig matches the slice and MaxText is pinned") {
  auto rendered = Render("maxtext-ray-image");
  const auto& trainer = Text(rendered, "maxtext_ray_trainer.py");
  CHECK_THAT(trainer, Catch::Contains("num_workers=4,"));
  CHECK_THAT(trainer, Catch::Contains("topology=\"4x4\""));
  CHECK_THAT(trainer, Catch::Contains("accelerator_type=\"TPU-V6E\""));
  CHECK_THAT(trainer, Catch::Contains("resources_per_worker={\"TPU\": 4}"));
  CHECK_THAT(trainer, Catch::Contains("from MaxText import train"));
  CHECK_THAT(trainer, Catch::Contains("Training complete!"));
  const auto& dockerfile = Text(rendered, "Dockerfile");
  CHECK_THAT(dockerfile, Catch::StartsWith("# tputrain"));
  CHECK_THAT(dockerfile, Catch::Contains("FROM rayproject/ray:2.49.1-py312"));
  CHECK_THAT(dockerfile, Catch::Contains("--branch \"tpu-recipes-v0.1.5\""));
  // The build fails loudly on a MaxText without the paths the trainer and the job use.
  CHECK_THAT(dockerfile, Catch::Contains("test -f maxtext/src/MaxText/train.py"));
  CHECK_THAT(dockerfile, Catch::Contains("test -f maxtext/src/MaxText/configs/base.yml"));
  CHECK_THAT(dockerfile, Catch::Contains("COPY maxtext_ray_trainer.py /app/"));
  auto two = Render("maxtext-ray-image", {"NUM_SLICES=2"});
  CHECK_THAT(Text(two, "maxtext_ray_trainer.py"), Catch::Contains("num_workers=8,"));
}

TEST_CASE("jetstream-pathways-405b: one v6e 4x4 slice, upstream defects fixed") {
  auto objects = Objects(Render("jetstream-pathways-405b"));
  const auto lws = Find(objects, "LeaderWorkerSet");
  CHECK(lws["metadata"]["annotations"]["leaderworkerset.sigs.k8s.io/exclusive-topology"].Scalar() ==
        "cloud.google.com/gke-nodepool");
  CHECK(lws["spec"]["leaderWorkerTemplate"]["size"].Scalar() == "5");
  const auto leader = lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"];
  const auto worker = lws["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"];
  CHECK(HasTpuToleration(leader));
  CHECK(HasTpuToleration(worker));
  // Upstream leaves the proxy's args empty.
  const auto proxy = Args(Container(leader, "pathways-proxy"));
  CHECK(proxy == std::vector<std::string>{"--resource_manager_address=$(LWS_LEADER_ADDRESS):38677",
                                          "--server_port=38681",
                                          "--gcs_scratch_location=gs://my-project-pathways/tmp"});
  const auto rm = Args(Container(leader, "pathways-rm"));
  CHECK(std::count(rm.begin(), rm.end(), "--instance_type=tpuv6e:4x4") == 1);
  CHECK(std::count(rm.begin(), rm.end(), "--instance_count=1") == 1);
  const auto jax = Args(Container(leader, "jax-tpu"));
  CHECK(std::count(jax.begin(), jax.end(), "load_parameters_path=gs://my-project-llama/maxtext/llama-3.1-405b/int8") ==
        1);
  CHECK(Container(leader, "jax-tpu")["startupProbe"]["httpGet"]["port"].as<int>() == 8000);
  // Four containers: logs and kubectl read JetStream's unless told otherwise.
  CHECK(lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["metadata"]["annotations"]
           ["kubectl.kubernetes.io/default-container"]
               .Scalar() == "jax-tpu");
  CHECK(Container(worker, "worker")["resources"]["limits"]["google.com/tpu"].Scalar() == "4");
  const auto service = Find(objects, "Service");
  CHECK(service["spec"]["selector"]["app"].Scalar() == "jetstream-pathways");
  CHECK(service["spec"]["ports"][0]["port"].as<int>() == 8000);
}

TEST_CASE("the 405B server reads the checkpoint where the converter writes it") {
  auto serving = Objects(Render("jetstream-pathways-405b"));
  auto converter = Objects(Render("checkpoint-converter"));
  const auto lws = Find(serving, "LeaderWorkerSet");
  std::string load;
  for (const auto& arg : Args(Container(lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"], "jax-tpu"))) {
    if (arg.rfind("load_parameters_path=", 0) == 0) load = arg.substr(std::string("load_parameters_path=").size());
  }
  std::string output;
  std::string quantize;
  const auto job = Find(converter, "Job");
  for (const auto& arg : Args(Container(job["spec"]["template"]["spec"], "inference-checkpoint"))) {
    if (arg.rfind("--output_directory=", 0) == 0) output = arg.substr(std::string("--output_directory=").size());
    if (arg.rfind("--quantize_type=", 0) == 0) quantize = arg.substr(std::string("--quantize_type=").size());
  }
  CHECK(load == output + "/" + quantize);
  CHECK(job["spec"]["template"]["spec"]["restartPolicy"].Scalar() == "Never");
}

TEST_CASE("jetstream-pathways-disagg-70b: two v6e 2x4 subgroups, upstream defects fixed") {
  auto rendered = Render("jetstream-pathways-disagg-70b");
  auto objects = Objects(rendered);
  const auto lws = Find(objects, "LeaderWorkerSet");
  CHECK(lws["metadata"]["annotations"]["leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology"].Scalar() ==
        "cloud.google.com/gke-nodepool");
  const auto group = lws["spec"]["leaderWorkerTemplate"];
  CHECK(group["size"].Scalar() == "5");
  CHECK(group["subGroupPolicy"]["subGroupSize"].Scalar() == "2");
  const auto leader = group["leaderTemplate"]["spec"];
  const auto worker = group["workerTemplate"]["spec"];
  CHECK(HasTpuToleration(worker));  // upstream's disaggregated workers have none
  CHECK(leader["nodeSelector"]["cloud.google.com/gke-tpu-topology"].Scalar() == "2x4");
  const auto proxy = Args(Container(leader, "pathways-proxy"));
  CHECK(proxy.size() == 3 + 43);
  CHECK(std::count(proxy.begin(), proxy.end(), "--gcs_scratch_location=gs://my-project-pathways/tmp") == 1);
  const auto rm = Args(Container(leader, "pathways-rm"));
  CHECK(std::count(rm.begin(), rm.end(), "--instance_count=2") == 1);
  CHECK(std::count(rm.begin(), rm.end(), "--instance_type=tpuv6e:2x4") == 1);
  const auto jax = Args(Container(leader, "jax-tpu"));
  CHECK(std::count(jax.begin(), jax.end(), "load_parameters_path=gs://my-project-llama/maxtext/llama-2-70b/int8") == 1);
  CHECK(std::count(jax.begin(), jax.end(), "model_name=llama2-70b") == 1);
  CHECK(group["leaderTemplate"]["metadata"]["annotations"]["kubectl.kubernetes.io/default-container"].Scalar() ==
        "jax-tpu");
  // No scratch bucket belonging to someone else, in any template.
  for (const auto& file : rendered.files) CHECK(file.text.find("cloud-pathways-staging") == std::string::npos);
}

TEST_CASE("saxml: admin, two model-server Jobs of 8 pods on v5e 4x8, HTTP LoadBalancer on 8888") {
  auto objects = Objects(Render("saxml"));
  REQUIRE(objects.size() == 5);
  const auto account = Find(objects, "ServiceAccount");
  CHECK(account["metadata"]["name"].Scalar() == "sax-sa");
  const auto jobset = Find(objects, "JobSet");
  const auto job = jobset["spec"]["replicatedJobs"][0];
  CHECK(job["replicas"].Scalar() == "2");
  CHECK(job["template"]["spec"]["parallelism"].Scalar() == "8");
  CHECK(job["template"]["spec"]["completions"].Scalar() == "8");
  const auto pod = job["template"]["spec"]["template"]["spec"];
  CHECK(pod["hostNetwork"].as<bool>());
  CHECK(pod["nodeSelector"]["cloud.google.com/gke-tpu-accelerator"].Scalar() == "tpu-v5-lite-podslice");
  CHECK(pod["nodeSelector"]["cloud.google.com/gke-tpu-topology"].Scalar() == "4x8");
  // Not left to GKE's admission: the pods schedule on TPU nodes' taint anywhere.
  CHECK(HasTpuToleration(pod));
  CHECK(pod["tolerations"][0]["effect"].Scalar() == "NoSchedule");
  const auto server = Container(pod, "sax-model-server");
  CHECK(server["resources"]["limits"]["google.com/tpu"].Scalar() == "4");
  const auto args = Args(server);
  CHECK(std::count(args.begin(), args.end(), "--platform_chip=tpuv5e") == 1);
  bool megascale = false;
  for (const auto& env : server["env"]) {
    if (env["name"].Scalar() == "MEGASCALE_NUM_SLICES")
      megascale = env["value"].IsScalar() && env["value"].Scalar().empty();
    if (env["name"].Scalar() == "SAX_ROOT") CHECK(env["value"].Scalar() == "gs://my-project-gke-bucket/sax-root");
  }
  CHECK(megascale);
  const auto service = Find(objects, "Service");
  CHECK(service["spec"]["type"].Scalar() == "LoadBalancer");
  CHECK(service["spec"]["ports"][0]["port"].as<int>() == 8888);
  for (const auto& object : objects) {
    if (object["kind"].Scalar() == "Deployment") {
      CHECK(object["spec"]["template"]["spec"]["serviceAccountName"].Scalar() == "sax-sa");
    }
  }
  CHECK(pod["serviceAccountName"].Scalar() == "sax-sa");
}

TEST_CASE("missing values are listed together, each with the lines that use it") {
  RenderRequest request;
  request.slice_values = tputrain::workflow::SliceTemplateValues;
  request.template_name = "raycluster-maxtext";
  request.template_dirs = {kTemplates};
  auto rendered = RenderTemplate(request);
  REQUIRE_FALSE(rendered);
  CHECK(tputrain::core::IsUsageError(rendered.error()));
  const auto& message = rendered.error().message;
  CHECK_THAT(message, Catch::StartsWith("no value for 3 variables: KSA_NAME (raycluster.yaml line "));
  CHECK_THAT(message, Catch::Contains("DOCKER_IMAGE (raycluster.yaml line"));
  CHECK_THAT(message, Catch::Contains("GS_BUCKET (raycluster.yaml line"));
  CHECK_THAT(message, Catch::Contains("needs BUCKET"));
}

TEST_CASE("configuration values fill the templates' defaults") {
  RenderRequest request;
  request.slice_values = tputrain::workflow::SliceTemplateValues;
  request.template_name = "saxml";
  request.template_dirs = {kTemplates};
  request.configuration = {{"BUCKET", "from-config"}};
  auto rendered = RenderTemplate(request);
  REQUIRE(rendered);
  CHECK_THAT(rendered->files[1].text, Catch::Contains("value: \"from-config\""));
}

TEST_CASE("computed values cannot be set; unknown names and bad TPU types are usage errors") {
  RenderRequest request;
  request.slice_values = tputrain::workflow::SliceTemplateValues;
  request.template_name = "raycluster-maxtext";
  request.template_dirs = {kTemplates};
  request.values_files = {kSeedValues + "raycluster-maxtext.yaml"};
  request.sets = {"TPU_TOPOLOGY=2x4"};
  auto computed = RenderTemplate(request);
  REQUIRE_FALSE(computed);
  CHECK_THAT(computed.error().message, Catch::Contains("TPU_TOPOLOGY is computed from TPU_TYPE"));
  request.sets = {"KSA_NAM=x"};
  auto typo = RenderTemplate(request);
  REQUIRE_FALSE(typo);
  CHECK_THAT(typo.error().message, Catch::Contains("has no variable KSA_NAM"));
  request.sets = {"TPU_TYPE=v9z-16"};
  auto tpu = RenderTemplate(request);
  REQUIRE_FALSE(tpu);
  CHECK_THAT(tpu.error().message, Catch::Contains("TPU_TYPE=v9z-16"));
  request.sets = {"NUM_SLICES=0"};
  CHECK_THAT(RenderTemplate(request).error().message, Catch::Contains("NUM_SLICES must be between 1 and 1024"));
  request.sets = {"NUM_SLICES=99999999999999"};
  CHECK_THAT(RenderTemplate(request).error().message, Catch::Contains("NUM_SLICES must be between 1 and 1024"));
  request.sets = {"NUM_SLICES=two"};
  CHECK_THAT(RenderTemplate(request).error().message, Catch::Contains("NUM_SLICES must be an integer"));
}

TEST_CASE("a value that would break the YAML is refused with the variable named") {
  RenderRequest request;
  request.slice_values = tputrain::workflow::SliceTemplateValues;
  request.template_name = "raycluster-maxtext";
  request.template_dirs = {kTemplates};
  request.values_files = {kSeedValues + "raycluster-maxtext.yaml"};
  request.sets = {"KSA_NAME=a\"\n  hostNetwork: true"};
  auto rendered = RenderTemplate(request);
  REQUIRE_FALSE(rendered);
  CHECK_THAT(rendered.error().message, Catch::Contains("${KSA_NAME}"));
}

namespace {

std::string EnvValue(const YAML::Node& container, const std::string& name) {
  for (const auto& env : container["env"]) {
    if (env["name"].Scalar() == name) return env["value"] ? env["value"].Scalar() : "(from " + name + " source)";
  }
  return "";
}

int ProbeBudgetSeconds(const YAML::Node& probe) {
  return probe["periodSeconds"].as<int>() * probe["failureThreshold"].as<int>();
}

}  // namespace

TEST_CASE("vllm: one v6e 2x4 VM holds the server, tensor parallel over its 8 chips, port 8000") {
  auto objects = Objects(Render("vllm"));
  REQUIRE(objects.size() == 2);
  const auto pod = Find(objects, "Deployment")["spec"]["template"]["spec"];
  CHECK(pod["nodeSelector"]["cloud.google.com/gke-tpu-accelerator"].Scalar() == "tpu-v6e-slice");
  CHECK(pod["nodeSelector"]["cloud.google.com/gke-tpu-topology"].Scalar() == "2x4");
  // Both machine shapes carry the 2x4 labels; only ct6e-standard-8t has all 8 chips on one node.
  CHECK(pod["nodeSelector"]["node.kubernetes.io/instance-type"].Scalar() == "ct6e-standard-8t");
  CHECK(HasTpuToleration(pod));
  const auto server = Container(pod, "vllm");
  CHECK(server["resources"]["requests"]["google.com/tpu"].Scalar() == "8");
  CHECK(server["resources"]["limits"]["google.com/tpu"].Scalar() == "8");
  const auto args = Args(server);
  REQUIRE(!args.empty());
  CHECK(args[0] == "meta-llama/Llama-3.1-8B-Instruct");
  CHECK(std::count(args.begin(), args.end(), "--tensor-parallel-size=8") == 1);
  CHECK(std::count(args.begin(), args.end(), "--port=8000") == 1);
  CHECK(server["ports"][0]["containerPort"].Scalar() == "8000");
  // The port opens only once the model is loaded and compiled: a first XLA compile takes 10-30 min.
  CHECK(server["startupProbe"]["httpGet"]["path"].Scalar() == "/health");
  CHECK(ProbeBudgetSeconds(server["startupProbe"]) >= 30 * 60);
  CHECK(std::stoi(EnvValue(server, "VLLM_ENGINE_READY_TIMEOUT_S")) > 600);  // vLLM's own default
  CHECK(!EnvValue(server, "VLLM_XLA_CACHE_PATH").empty());
  CHECK(EnvValue(server, "HF_TOKEN") == "(from HF_TOKEN source)");
  const auto service = Find(objects, "Service");
  CHECK(service["metadata"]["name"].Scalar() == "vllm-service");
  CHECK(service["spec"]["ports"][0]["port"].Scalar() == "8000");
  CHECK(service["spec"]["selector"]["app"].Scalar() == "vllm-tpu");
}

TEST_CASE("vllm-multihost: one pod per v6e 4x4 host, the leader starts Ray then vLLM over all 16 chips") {
  auto objects = Objects(Render("vllm-multihost"));
  REQUIRE(objects.size() == 2);
  const auto lws = Find(objects, "LeaderWorkerSet")["spec"]["leaderWorkerTemplate"];
  CHECK(lws["size"].Scalar() == "4");
  CHECK(lws["restartPolicy"].Scalar() == "RecreateGroupOnPodRestart");
  // LeaderReady would create the workers only after the leader is Ready, and vLLM's port opens
  // only after the workers joined Ray: the group would never start.
  CHECK((!lws["startupPolicy"] || lws["startupPolicy"].Scalar() == "LeaderCreated"));
  const auto leader = Container(lws["leaderTemplate"]["spec"], "vllm-leader");
  const std::string command = leader["args"][0].Scalar();
  CHECK_THAT(command, Catch::Contains("leader --ray_cluster_size=$(LWS_GROUP_SIZE);"));
  CHECK_THAT(command, Catch::Contains("vllm serve meta-llama/Llama-3.3-70B-Instruct "));
  CHECK_THAT(command, Catch::Contains("--tensor-parallel-size=16 --pipeline-parallel-size=1"));
  CHECK(command.find('\n') == std::string::npos);
  CHECK(leader["resources"]["limits"]["google.com/tpu"].Scalar() == "4");
  CHECK(ProbeBudgetSeconds(leader["startupProbe"]) >= 30 * 60);
  CHECK(leader["readinessProbe"]["httpGet"]["path"].Scalar() == "/health");
  const auto worker_pod = lws["workerTemplate"]["spec"];
  CHECK(worker_pod["nodeSelector"]["cloud.google.com/gke-tpu-topology"].Scalar() == "4x4");
  const auto worker = Container(worker_pod, "vllm-worker");
  CHECK_THAT(worker["args"][0].Scalar(), Catch::Contains("worker --ray_address=$(LWS_LEADER_ADDRESS)"));
  CHECK(worker["resources"]["limits"]["google.com/tpu"].Scalar() == "4");
  CHECK(!worker["readinessProbe"]);  // workers serve nothing on 8000
  CHECK(EnvValue(worker, "HF_TOKEN") == "(from HF_TOKEN source)");
  const auto service = Find(objects, "Service");
  CHECK(service["spec"]["selector"]["role"].Scalar() == "leader");
  CHECK(service["spec"]["selector"]["leaderworkerset.sigs.k8s.io/name"].Scalar() == "vllm-tpu");
}

namespace {

// What a render says: its YAML files as parsed (a comment says nothing), other files as text.
std::string AllText(const Rendered& rendered) {
  std::string text;
  for (const auto& file : rendered.files) {
    text += "--- " + file.name + "\n";
    if (!file.yaml) {
      text += file.text;
      continue;
    }
    for (const auto& document : YAML::LoadAll(file.text)) text += YAML::Dump(document) + "\n";
  }
  return text;
}

tputrain::core::Result<Rendered> TryRender(const std::string& name, const std::vector<std::string>& sets) {
  RenderRequest request;
  request.slice_values = tputrain::workflow::SliceTemplateValues;
  request.template_name = name;
  request.template_dirs = {kTemplates};
  request.sets = sets;
  return RenderTemplate(request);
}

// Another value of the variable's type, unlike `current`.
std::string OtherValue(const tputrain::render::VariableInfo& row, const std::string& current) {
  if (row.type == "int") return current == "7" ? "9" : "7";
  if (row.type == "bool") return current == "true" ? "false" : "true";
  return current == "zz-other" ? "zz-another" : "zz-other";
}

}  // namespace

TEST_CASE("vllm and vllm-multihost: NUM_SLICES servers, a slice each") {
  for (const auto& [name, kind] : {std::pair{"vllm", "Deployment"}, std::pair{"vllm-multihost", "LeaderWorkerSet"}}) {
    INFO(name);
    CHECK(Find(Objects(Render(name)), kind)["spec"]["replicas"].Scalar() == "1");
    CHECK(Find(Objects(Render(name, {"NUM_SLICES=2"})), kind)["spec"]["replicas"].Scalar() == "2");
  }
}

// `render --describe` lists a template's inputs; each one is a promise that it matters. A listed
// input that renders the same whatever its value (vllm-multihost's NUM_SLICES once rendered
// `replicas: 1` for any number) silently gives a user less than asked.
TEST_CASE("every input a template lists changes what it renders") {
  auto templates = tputrain::render::ListTemplates({kTemplates});
  REQUIRE(templates);
  // Other slice types to try, in turn, for TPU_TYPE: the first the template takes counts.
  const std::vector<std::string> tpu_types = {"v6e-32",       "v6e-4",        "v6e-8", "v6e-16",
                                              "v5litepod-16", "v5litepod-64", "v5p-8", "v5p-16"};
  for (const auto& summary : *templates) {
    auto spec = tputrain::render::LoadTemplate({kTemplates}, summary.name);
    REQUIRE(spec);
    const auto seeds = tputrain::render::LoadValuesFile(kSeedValues + summary.name + ".yaml");
    REQUIRE(seeds);
    for (const auto& row : tputrain::render::DescribeTemplate(*spec, tputrain::workflow::SliceTemplateValues)) {
      if (row.origin == "computed") continue;
      INFO(summary.name << ": " << row.name << " (" << row.origin << ")");
      // The seed's values, but for those whose default reads this input (the seed's value would
      // hide it: raycluster-maxtext's GS_BUCKET, whose default is made of BUCKET).
      std::vector<std::string> sets;
      for (const auto& [name, value] : *seeds) {
        const auto* variable = spec->Find(name);
        if (variable && variable->default_value.find("${" + row.name + "}") != std::string::npos) continue;
        sets.push_back(name + "=" + value);
      }
      const auto seeded = seeds->find(row.name);
      std::string current = seeded != seeds->end() ? seeded->second : row.value;
      if (seeded == seeds->end() && (row.origin == "configuration" || row.origin == "required")) {
        current = "zz-base";  // what tputrain's configuration (or the user) would give
        sets.push_back(row.name + "=" + current);
      }
      auto base = TryRender(summary.name, sets);
      INFO((base ? "" : base.error().message));
      REQUIRE(base);
      const std::string baseline = AllText(*base);
      std::vector<std::string> others;
      if (row.name == "TPU_TYPE") {
        for (const auto& type : tpu_types) {
          if (type != current) others.push_back(type);
        }
      } else {
        others.push_back(OtherValue(row, current));
      }
      bool changed = false;
      std::string refusals;
      for (const auto& other : others) {
        auto with = sets;
        with.push_back(row.name + "=" + other);
        auto rendered = TryRender(summary.name, with);
        if (!rendered) {
          refusals += "\n  " + other + ": " + rendered.error().message;
          continue;
        }
        changed = AllText(*rendered) != baseline;
        if (changed) break;
      }
      INFO("refused:" << refusals);
      CHECK(changed);
    }
  }
}

namespace {

// Every pod spec under `node` (a map with containers), wherever the object nests it.
void PodSpecs(const YAML::Node& node, std::vector<YAML::Node>& specs) {
  if (node.IsMap()) {
    if (node["containers"] && node["containers"].IsSequence()) specs.push_back(node);
    for (const auto& entry : node) PodSpecs(entry.second, specs);
  } else if (node.IsSequence()) {
    for (const auto& item : node) PodSpecs(item, specs);
  }
}

}  // namespace

// Ironwood hosts have two NUMA nodes of 2 chips each. GKE allows a container per NUMA node, but
// documents no pod spec for it; xpk renders that form for JobSet training only, KubeRay has no
// second Ray container per pod (kuberay#4455) and Google's Ironwood serving recipes run one
// container with the host's 4 chips. So every tpu7x pod tputrain renders asks for all 4 in one.
TEST_CASE("on tpu7x each TPU pod is one container with the host's 4 chips") {
  const std::vector<std::pair<std::string, std::string>> cases = {{"raycluster-maxtext", "tpu7x-16"},
                                                                  {"vllm", "tpu7x-8"},
                                                                  {"vllm-multihost", "tpu7x-16"},
                                                                  {"saxml", "tpu7x-16"},
                                                                  {"jetstream-pathways-405b", "tpu7x-16"}};
  for (const auto& [name, tpu_type] : cases) {
    INFO(name << " " << tpu_type);
    std::vector<YAML::Node> specs;
    for (const auto& object : Objects(Render(name, {"TPU_TYPE=" + tpu_type}))) PodSpecs(object, specs);
    int tpu_pods = 0;
    for (const auto& spec : specs) {
      if (!spec["nodeSelector"] || !spec["nodeSelector"]["cloud.google.com/gke-tpu-accelerator"]) continue;
      CHECK(spec["nodeSelector"]["cloud.google.com/gke-tpu-accelerator"].Scalar() == "tpu7x");
      int tpu_containers = 0;
      for (const auto& container : spec["containers"]) {
        const auto resources = container["resources"];
        if (!resources || !resources["limits"] || !resources["limits"]["google.com/tpu"]) continue;
        const auto limit = resources["limits"]["google.com/tpu"];
        ++tpu_containers;
        CHECK(limit.Scalar() == "4");
      }
      // Pathways' leader runs on a TPU host without asking for its chips.
      CHECK(tpu_containers <= 1);
      if (tpu_containers == 1) ++tpu_pods;
    }
    CHECK(tpu_pods >= 1);
  }
}
