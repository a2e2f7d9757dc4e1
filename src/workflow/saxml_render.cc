#include "saxml_render.h"

#include "template_values.h"
#include "tputrain/core/json_fields.h"
#include "tputrain/render/render.h"

namespace tputrain::workflow {

core::Result<SaxmlObjects> RenderSaxml(const SaxmlRender& request) {
  render::RenderRequest render_request;
  render_request.template_name = "saxml";
  render_request.template_dirs = request.template_dirs;
  render_request.configuration = request.configuration;
  render_request.slice_values = SliceTemplateValues;
  render_request.sets = {"TPU_TYPE=" + request.tpu_type, "NUM_SLICES=" + std::to_string(request.replicas),
                         std::string("SAX_HTTP_SERVICE_TYPE=") + (request.expose ? "LoadBalancer" : "ClusterIP")};
  render_request.sets.insert(render_request.sets.end(), request.sets.begin(), request.sets.end());
  auto files = render::RenderTemplate(render_request);
  if (!files) return core::Fail(files.error());
  SaxmlObjects rendered;
  nlohmann::json selector = nlohmann::json::object();
  for (const auto& file : files->files) {
    if (!file.yaml) continue;
    auto objects = k8s::ParseManifests(file.text, "saxml/" + file.name);
    if (!objects) return core::Fail(objects.error());
    for (auto& object : *objects) {
      if (object.kind == "JobSet" && rendered.jobset.empty()) {
        rendered.jobset = object.name;
        const auto spec = core::ObjectAt(object.json, "spec");
        for (const auto& job : core::ArrayAt(spec, "replicatedJobs")) {
          const int64_t replicas = core::IntAt(job, "replicas", 1);
          const auto job_spec = core::ObjectAt(core::ObjectAt(job, "template"), "spec");
          rendered.model_server_pods += replicas * core::IntAt(job_spec, "parallelism", 1);
        }
      }
      if (object.kind == "Service" && rendered.service.empty()) {
        rendered.service = object.name;
        selector = core::ObjectAt(core::ObjectAt(object.json, "spec"), "selector");
      }
      rendered.objects.push_back(std::move(object));
    }
  }
  // sax-http is the Deployment behind the Service; the other one is the admin server.
  for (const auto& object : rendered.objects) {
    if (object.kind != "Deployment") continue;
    const auto labels = core::ObjectAt(
        core::ObjectAt(core::ObjectAt(core::ObjectAt(object.json, "spec"), "template"), "metadata"), "labels");
    bool behind_service = !selector.empty();
    for (const auto& [key, value] : selector.items())
      behind_service = behind_service && labels.value(key, nlohmann::json()) == value;
    (behind_service ? rendered.http_deployment : rendered.admin_deployment) = object.name;
  }
  if (rendered.jobset.empty() || rendered.service.empty() || rendered.admin_deployment.empty() ||
      rendered.http_deployment.empty()) {
    return core::Fail(core::Error::Internal(
        "template saxml lacks its admin server, model-server JobSet, sax-http Deployment or Service"));
  }
  return rendered;
}

}  // namespace tputrain::workflow
