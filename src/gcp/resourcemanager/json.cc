#include "tputrain/gcp/resourcemanager/types.h"

namespace tputrain::gcp::resourcemanager {

Project ProjectFromJson(const nlohmann::json& body) {
  Project project;
  if (!body.is_object()) return project;
  project.project_id = body.value("projectId", "");
  auto number = body.find("projectNumber");
  if (number != body.end()) {
    project.project_number = number->is_string() ? number->get<std::string>() : number->dump();
  }
  project.lifecycle_state = body.value("lifecycleState", "");
  project.raw = body;
  return project;
}

}  // namespace tputrain::gcp::resourcemanager
