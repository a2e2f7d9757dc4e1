#include <cctype>
#include <functional>

#include "template_values.h"
#include "tputrain/core/json_fields.h"
#include "tputrain/k8s/tpu_node_selector.h"
#include "tputrain/render/render.h"
#include "tputrain/workflow/submit_cluster.h"

namespace tputrain::workflow {
namespace {

constexpr size_t kMaxRayClusterName = 53;  // KubeRay's validation: the name is reused in DNS names

bool IsDns1035Label(const std::string& name) {
  if (name.empty() || name.size() > kMaxRayClusterName) return false;
  if (std::islower(static_cast<unsigned char>(name.front())) == 0 || name.back() == '-') return false;
  for (char c : name) {
    if (std::islower(static_cast<unsigned char>(c)) == 0 && std::isdigit(static_cast<unsigned char>(c)) == 0 &&
        c != '-') {
      return false;
    }
  }
  return true;
}

// True when any container below `node` requests or limits google.com/tpu.
bool RequestsTpu(const nlohmann::json& node) {
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      if ((key == "requests" || key == "limits") && value.is_object() && value.contains("google.com/tpu")) return true;
      if (RequestsTpu(value)) return true;
    }
  } else if (node.is_array()) {
    for (const auto& item : node) {
      if (RequestsTpu(item)) return true;
    }
  }
  return false;
}

bool Given(const std::vector<std::string>& sets, std::string_view name) {
  for (const auto& set : sets) {
    if (set.size() > name.size() && set.compare(0, name.size(), name) == 0 && set[name.size()] == '=') return true;
  }
  return false;
}

core::Status CheckRayCluster(const MaxTextJob& job, const RenderedRayCluster& rendered) {
  const k8s::Object* cluster = nullptr;
  for (const auto& object : rendered.objects) {
    if (object.kind != "RayCluster") continue;
    if (cluster != nullptr) {
      return core::Fail(core::Error::Usage("--raycluster-template " + rendered.template_name +
                                           ": renders more than one RayCluster; submit needs exactly one"));
    }
    cluster = &object;
  }
  if (cluster == nullptr) {
    return core::Fail(
        core::Error::Usage("--raycluster-template " + rendered.template_name + ": renders no RayCluster"));
  }
  if (cluster->name != rendered.name) {
    return core::Fail(core::Error::Usage("--raycluster-template " + rendered.template_name +
                                         ": names its RayCluster '" + cluster->name + "', not RAY_CLUSTER_NAME ('" +
                                         rendered.name + "')"));
  }
  const auto& spec = core::ObjectAt(cluster->json, "spec");
  const auto head = core::ObjectAt(spec, "headGroupSpec");
  const auto containers = core::ArrayAt(core::ObjectAt(core::ObjectAt(head, "template"), "spec"), "containers");
  if (containers.empty()) {
    return core::Fail(core::Error::Usage(cluster->source + ": RayCluster " + rendered.name +
                                         " has no head container (KubeRay runs Ray in containers[0])"));
  }
  bool tpu = RequestsTpu(spec);
  if (job.cpu && tpu) {
    return core::Fail(core::Error::Usage("--raycluster-template " + rendered.template_name + ": model " +
                                         job.model.name + " runs on CPU, but the RayCluster requests google.com/tpu"));
  }
  if (!job.cpu && !tpu) {
    return core::Fail(core::Error::Usage("--raycluster-template " + rendered.template_name +
                                         ": the RayCluster requests no google.com/tpu, but model " + job.model.name +
                                         " trains on " + job.slice->accelerator_type));
  }
  return {};
}

}  // namespace

std::string DefaultRayClusterName(const MaxTextJob& job) {
  std::string base = job.model.name + (job.slice ? "-" + job.slice->accelerator_type : std::string());
  std::string name;
  for (char c : base) {
    char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    bool keep =
        std::islower(static_cast<unsigned char>(lower)) != 0 || std::isdigit(static_cast<unsigned char>(lower)) != 0;
    if (keep) {
      name += lower;
    } else if (!name.empty() && name.back() != '-') {
      name += '-';
    }
  }
  if (name.empty() || std::islower(static_cast<unsigned char>(name.front())) == 0) name = "ray-" + name;
  if (name.size() > kMaxRayClusterName) name.resize(kMaxRayClusterName);
  while (!name.empty() && name.back() == '-') name.pop_back();
  return name;
}

core::Result<RenderedRayCluster> RenderRayCluster(const MaxTextJob& job, const RayClusterRequest& request) {
  RenderedRayCluster rendered;
  rendered.name = request.name.empty() ? DefaultRayClusterName(job) : request.name;
  if (!IsDns1035Label(rendered.name)) {
    return core::Fail(
        core::Error::Usage("--raycluster: expected a lowercase DNS label of at most 53 characters "
                           "(letters, digits, '-', starting with a letter), got '" +
                           rendered.name + "'"));
  }
  rendered.template_name = !request.template_name.empty() ? request.template_name
                           : job.cpu                      ? std::string(kCpuRayClusterTemplate)
                                                          : std::string(kTpuRayClusterTemplate);
  auto spec = render::LoadTemplate(request.template_dirs, rendered.template_name);
  if (!spec) return core::Fail(spec.error());
  // The slice comes from the job, so it cannot disagree with the MaxText mesh.
  for (std::string_view fixed : {"RAY_CLUSTER_NAME", "TPU_TYPE", "NUM_SLICES"}) {
    if (Given(request.sets, fixed)) {
      return core::Fail(core::Error::Usage("--raycluster-set " + std::string(fixed) + ": set by submit (use " +
                                           (fixed == "RAY_CLUSTER_NAME" ? "--raycluster" : "--tpu-type") + ")"));
    }
  }
  if (job.slice && spec->default_tpu_type.empty()) {
    return core::Fail(core::Error::Usage(
        "--raycluster-template " + rendered.template_name + ": has no TPU slice (no tpu_type), but model " +
        job.model.name + " trains on " + job.slice->accelerator_type + "; use " + std::string(kTpuRayClusterTemplate)));
  }
  const render::VariableSpec* image = spec->Find("DOCKER_IMAGE");
  if (request.image.empty() && image != nullptr && !image->has_default && request.values_files.empty() &&
      !Given(request.sets, "DOCKER_IMAGE")) {
    return core::Fail(
        core::Error::Usage("--image: required: the container image of the RayCluster's pods (" + image->meaning + ")"));
  }

  render::RenderRequest render_request;
  render_request.template_name = rendered.template_name;
  render_request.template_dirs = request.template_dirs;
  render_request.values_files = request.values_files;
  render_request.configuration = request.configuration;
  render_request.slice_values = SliceTemplateValues;
  render_request.sets = request.sets;
  render_request.sets.push_back("RAY_CLUSTER_NAME=" + rendered.name);
  if (!request.image.empty()) render_request.sets.push_back("DOCKER_IMAGE=" + request.image);
  if (job.slice) {
    render_request.sets.push_back("TPU_TYPE=" + job.slice->accelerator_type);
    render_request.sets.push_back("NUM_SLICES=1");
  }
  auto files = render::RenderTemplate(render_request);
  if (!files) return core::Fail(files.error());
  for (const auto& file : files->files) {
    if (!file.yaml) continue;
    auto objects = k8s::ParseManifests(file.text, rendered.template_name + "/" + file.name);
    if (!objects) return core::Fail(objects.error());
    for (auto& object : *objects) rendered.objects.push_back(std::move(object));
  }
  rendered.objects = k8s::OrderForApply(std::move(rendered.objects));
  if (auto labels = PoolNodeLabels(request.capacity); !labels.empty()) {
    if (k8s::AddTpuNodeSelector(rendered.objects, labels) == 0) {
      return core::Fail(core::Error::Usage(
          "--capacity " + std::string(CapacityModeName(request.capacity)) + ": template " + rendered.template_name +
          " has no pods that select TPU nodes (cloud.google.com/gke-tpu-accelerator)"));
    }
  }
  if (auto checked = CheckRayCluster(job, rendered); !checked) return core::Fail(checked.error());
  return rendered;
}

}  // namespace tputrain::workflow
