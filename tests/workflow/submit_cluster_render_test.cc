// The RayCluster `submit` applies, rendered from the built-in templates for the job's slice, and
// the ledger entries it writes (CONTRACTS §2).
#include <regex>

#include <catch2/catch.hpp>

#include "testing/fake_clock.h"
#include "tputrain/catalog/models.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/workflow/ledger_entries.h"
#include "tputrain/workflow/submit_cluster.h"

using namespace tputrain;

namespace {

using testing::FakeClock;

// Wall time at 2026-11-18T11:06:40Z, which run names carry; it moves only if the code sleeps.
FakeClock FixedTime() { return FakeClock(std::chrono::system_clock::time_point(std::chrono::seconds(1795000000))); }

workflow::MaxTextJob Job(const std::string& model, const std::string& tpu_type = "") {
  FakeClock clock = FixedTime();
  workflow::SubmitSpec spec;
  spec.model = model;
  spec.tpu_type = tpu_type;
  auto job = workflow::BuildMaxTextJob(spec, clock);
  REQUIRE(job);
  return *job;
}

workflow::RayClusterRequest Request() {
  workflow::RayClusterRequest request;
  request.template_dirs = {std::string(TPUTRAIN_SOURCE_DIR) + "/templates"};
  request.image = "registry.example/ray-maxtext:1";
  return request;
}

const nlohmann::json& RayCluster(const workflow::RenderedRayCluster& rendered) {
  REQUIRE(rendered.objects.size() == 1);
  REQUIRE(rendered.objects[0].kind == "RayCluster");
  return rendered.objects[0].json;
}

}  // namespace

TEST_CASE("the default RayCluster name is stable per model and slice, and a valid KubeRay name", "[submit]") {
  CHECK(workflow::DefaultRayClusterName(Job("maxtext-cpu-smoke")) == "maxtext-cpu-smoke");
  CHECK(workflow::DefaultRayClusterName(Job("llama3-8b", "v6e-16")) == "llama3-8b-v6e-16");
  // Another slice is another cluster: a re-run on v6e-16 finds its RayCluster, one on v6e-32 does not.
  CHECK(workflow::DefaultRayClusterName(Job("llama3-8b", "v6e-32")) == "llama3-8b-v6e-32");
  // Every preset on a slice of every generation: '.' (llama3.1-405b) and '-' runs have no place in
  // a DNS-1035 label, which KubeRay reuses in Service names, and it is at most 53 characters.
  const std::regex dns_1035_label("[a-z]([-a-z0-9]*[a-z0-9])?");
  for (const auto& preset : catalog::ModelPresets()) {
    for (const auto& generation : catalog::Generations()) {
      workflow::MaxTextJob job;
      job.model = preset;
      job.slice = catalog::SlicesOf(generation).back();
      const std::string name = workflow::DefaultRayClusterName(job);
      INFO(preset.name << " on " << job.slice->accelerator_type << " → " << name);
      CHECK(std::regex_match(name, dns_1035_label));
      CHECK(name.size() <= 53);
    }
  }
  workflow::MaxTextJob dotted;
  dotted.model.name = "llama3.1-405b";
  dotted.slice = catalog::FindSliceType("v5p-128").value();
  CHECK(workflow::DefaultRayClusterName(dotted) == "llama3-1-405b-v5p-128");
}

TEST_CASE("a CPU preset gets a head-only RayCluster that asks for no TPU", "[submit]") {
  auto rendered = workflow::RenderRayCluster(Job("maxtext-cpu-smoke"), Request());
  INFO((rendered ? "" : rendered.error().message));
  REQUIRE(rendered);
  CHECK(rendered->template_name == "raycluster-cpu");
  const auto& cluster = RayCluster(*rendered);
  CHECK(cluster["metadata"]["name"] == "maxtext-cpu-smoke");
  CHECK(cluster.dump().find("google.com/tpu") == std::string::npos);
  CHECK_FALSE(cluster["spec"].contains("workerGroupSpecs"));
  const auto& head = cluster["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0];
  CHECK(head["image"] == "registry.example/ray-maxtext:1");
  CHECK(cluster["spec"]["headGroupSpec"]["rayStartParams"] == nlohmann::json::object());
}

TEST_CASE("a TPU preset's RayCluster has one worker group shaped like the planned slice", "[submit]") {
  auto request = Request();
  request.sets = {"KSA_NAME=ray-ksa", "GS_BUCKET=my-bucket"};
  request.name = "train";
  auto rendered = workflow::RenderRayCluster(Job("llama3-8b", "v6e-16"), request);
  INFO((rendered ? "" : rendered.error().message));
  REQUIRE(rendered);
  CHECK(rendered->template_name == "raycluster-maxtext");
  const auto& cluster = RayCluster(*rendered);
  CHECK(cluster["metadata"]["name"] == "train");
  const auto& group = cluster["spec"]["workerGroupSpecs"][0];
  CHECK(group["replicas"] == 1);
  CHECK(group["numOfHosts"] == 4);
  const auto& pod = group["template"]["spec"];
  CHECK(pod["containers"][0]["resources"]["requests"]["google.com/tpu"] == "4");
  CHECK(pod["nodeSelector"]["cloud.google.com/gke-tpu-topology"] == "4x4");
  CHECK(pod["nodeSelector"]["cloud.google.com/gke-tpu-accelerator"] == "tpu-v6e-slice");

  // A bigger slice reshapes the group: the slice comes from the job, never from a template value.
  auto bigger = workflow::RenderRayCluster(Job("llama3-8b", "v6e-32"), request);
  REQUIRE(bigger);
  CHECK(RayCluster(*bigger)["spec"]["workerGroupSpecs"][0]["numOfHosts"] == 8);
}

TEST_CASE("RayCluster inputs that cannot work are usage errors naming the flag", "[submit]") {
  auto cpu = Job("maxtext-cpu-smoke");
  auto tpu = Job("llama3-8b", "v6e-16");
  struct Case {
    std::function<void(workflow::RayClusterRequest&)> change;
    const workflow::MaxTextJob* job;
    std::string flag;
  };
  std::vector<Case> cases = {
      {[](auto& r) { r.name = "Not_A_Label"; }, &cpu, "--raycluster"},
      {[](auto& r) { r.name = std::string(54, 'a'); }, &cpu, "--raycluster"},
      {[](auto& r) { r.image.clear(); }, &cpu, "--image"},
      {[](auto& r) { r.sets = {"TPU_TYPE=v6e-8"}; }, &tpu, "--raycluster-set TPU_TYPE"},
      {[](auto& r) { r.sets = {"RAY_CLUSTER_NAME=x"}; }, &cpu, "--raycluster-set RAY_CLUSTER_NAME"},
      {[](auto& r) { r.template_name = "raycluster-cpu"; }, &tpu, "--raycluster-template raycluster-cpu"},
      {[](auto& r) {
         r.template_name = "raycluster-maxtext";
         r.sets = {"KSA_NAME=k", "GS_BUCKET=b"};
       },
       &cpu, "--raycluster-template raycluster-maxtext"},
  };
  for (const auto& c : cases) {
    auto request = Request();
    c.change(request);
    auto rendered = workflow::RenderRayCluster(*c.job, request);
    REQUIRE_FALSE(rendered);
    INFO(rendered.error().message);
    CHECK(rendered.error().kind == core::ErrorKind::kInvalidArgument);
    CHECK(rendered.error().message.rfind(c.flag, 0) == 0);
  }
}

TEST_CASE("ledger entries name the cluster, the object and the job as cleanup needs them", "[submit]") {
  auto kubeconfig = state::AccessRecord::Kubeconfig("/home/u/.kube/config", "ctx");
  auto gke = state::AccessRecord::Gke("projects/p/locations/us-east5/clusters/c");
  CHECK(kubeconfig.Id() == "kubeconfig:ctx");
  CHECK(gke.Id() == "gke:projects/p/locations/us-east5/clusters/c");

  k8s::Object object;
  object.api_version = "ray.io/v1";
  object.kind = "RayCluster";
  object.ns = "ml";
  object.name = "ray";
  auto entry = workflow::K8sObjectEntry(gke, object, false);
  CHECK(entry.KindName() == "k8s-object");
  CHECK(entry.name == "gke:projects/p/locations/us-east5/clusters/c|ray.io/v1|RayCluster|ml|ray");
  CHECK_FALSE(entry.owned);
  CHECK(entry.details == nlohmann::json{{"api_version", "ray.io/v1"},
                                        {"kind", "RayCluster"},
                                        {"namespace", "ml"},
                                        {"name", "ray"},
                                        {"access", {{"gke_cluster", "projects/p/locations/us-east5/clusters/c"}}}});
  auto access = workflow::AccessOf(entry);
  REQUIRE(access);
  CHECK(*access == gke);
  object.api_version = "v1";
  object.kind = "Namespace";
  object.ns.clear();
  CHECK(workflow::K8sObjectEntry(kubeconfig, object, true).name == "kubeconfig:ctx|v1|Namespace||ray");

  auto job = workflow::RayJobEntry("raysubmit_abc", workflow::RayJobTarget::Direct("http://127.0.0.1:8265"));
  CHECK(job.KindName() == "ray-job");
  CHECK(job.name == "raysubmit_abc");
  CHECK(job.details == nlohmann::json{{"address", "http://127.0.0.1:8265"}});
  auto direct = workflow::RayJobTargetOf(job);
  REQUIRE(direct);
  CHECK_FALSE(direct->OnCluster());
  CHECK(direct->address == "http://127.0.0.1:8265");

  auto proxied = workflow::RayJobEntry("raysubmit_def", workflow::RayJobTarget::OnRayCluster("ray", "ml", kubeconfig));
  CHECK(proxied.details == nlohmann::json{{"raycluster", "ray"},
                                          {"namespace", "ml"},
                                          {"access", {{"kubeconfig", "/home/u/.kube/config"}, {"context", "ctx"}}}});
  auto target = workflow::RayJobTargetOf(proxied);
  REQUIRE(target);
  CHECK(target->OnCluster());
  CHECK(target->raycluster == "ray");
  CHECK(target->ns == "ml");
  CHECK(target->access == kubeconfig);

  // A TPU VM's Ray: the node, not the tunnel's loopback port, and how it was reached.
  auto on_tpu_vm =
      workflow::RayJobEntry("raysubmit_tpu", workflow::RayJobTarget::OnTpuVmRay({"p", "us-east5-a", "ms-1"}, "ssh"));
  CHECK(on_tpu_vm.details ==
        nlohmann::json{{"tpu_vm", {{"project", "p"}, {"zone", "us-east5-a"}, {"node", "ms-1"}}}, {"via", "ssh"}});
  auto tpu_vm = workflow::RayJobTargetOf(on_tpu_vm);
  REQUIRE(tpu_vm);
  CHECK(tpu_vm->OnTpuVm());
  CHECK_FALSE(tpu_vm->OnCluster());
  CHECK(tpu_vm->tpu_vm.node == "ms-1");
  CHECK(tpu_vm->via == "ssh");
  on_tpu_vm.details.erase("via");  // written before --via existed: IAP
  CHECK(workflow::RayJobTargetOf(on_tpu_vm)->via == "iap");
  on_tpu_vm.details["tpu_vm"].erase("zone");
  auto no_zone = workflow::RayJobTargetOf(on_tpu_vm);
  REQUIRE_FALSE(no_zone);
  CHECK(no_zone.error().message == "ray-job raysubmit_tpu: details.tpu_vm.zone: expected a string");

  proxied.details["namespace"] = 7;
  auto bad = workflow::RayJobTargetOf(proxied);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "ray-job raysubmit_def: details.namespace: expected a string");
}
