// Service Usage serviceusage/v1: services get, list, enable and batchEnable (their operations
// finish at once, as Google's usually do within the first poll), and the gate every other API
// passes: a service that is disabled (EmulatorConfig::disabled_apis, until enabled) answers 403
// SERVICE_DISABLED as Google does. One set of service states serves every project.
#include <algorithm>
#include <map>

#include "operations.h"
#include "tputrain/emulator/handlers.h"

namespace tputrain::emulator {
namespace {

using core::ErrorKind;
using nlohmann::json;

struct KnownService {
  const char* name;
  const char* title;
  const char* method_prefix;  // the emulator's method ids of the API, "" when it serves none
};

constexpr KnownService kServices[] = {
    {"artifactregistry.googleapis.com", "Artifact Registry API", "artifactregistry."},
    {"cloudbilling.googleapis.com", "Cloud Billing API", "cloudbilling."},
    {"cloudbuild.googleapis.com", "Cloud Build API", "cloudbuild."},
    {"cloudresourcemanager.googleapis.com", "Cloud Resource Manager API", "cloudresourcemanager."},
    {"compute.googleapis.com", "Compute Engine API", "compute."},
    {"container.googleapis.com", "Kubernetes Engine API", "container."},
    {"iam.googleapis.com", "Identity and Access Management (IAM) API", "iam."},
    {"serviceusage.googleapis.com", "Service Usage API", ""},  // never gated: it is how one enables
    {"storage.googleapis.com", "Cloud Storage JSON API", "storage."},
    {"tpu.googleapis.com", "Cloud TPU API", "tpu."},
};

const KnownService* Find(const std::string& name) {
  for (const auto& service : kServices) {
    if (name == service.name) return &service;
  }
  return nullptr;
}

bool Enabled(const Call& call, const std::string& service) {
  const json& states = call.world.contains("serviceStates") ? call.world["serviceStates"] : json::object();
  if (auto it = states.find(service); it != states.end()) return *it == "ENABLED";
  const auto& disabled = call.config.disabled_apis;
  return std::find(disabled.begin(), disabled.end(), service) == disabled.end();
}

json ServiceJson(const Call& call, const std::string& project, const std::string& service) {
  std::string number = std::to_string(ProjectNumber(project));
  const KnownService* known = Find(service);
  json config = {{"name", service}};
  if (known != nullptr) config["title"] = known->title;
  return {{"name", "projects/" + number + "/services/" + service},
          {"parent", "projects/" + number},
          {"config", config},
          {"state", Enabled(call, service) ? "ENABLED" : "DISABLED"}};
}

ApiResponse UnknownService(const std::string& service) {
  return Aip193Error(ErrorKind::kPermissionDenied, "Not found or permission denied for service(s): " + service + ".",
                     json::array({ErrorInfoDetail("SERVICE_CONFIG_NOT_FOUND_OR_PERMISSION_DENIED",
                                                  "serviceusage.googleapis.com", {{"services", service}})}));
}

// Enables `services` and answers with a finished operation carrying `response`.
ApiResponse EnableAndAnswer(Call& call, const std::vector<std::string>& services, json response) {
  for (const auto& service : services) call.world["serviceStates"][service] = "ENABLED";
  call.mutated = true;
  json op = {{"name", "operations/acat.p2-" + std::to_string(ProjectNumber(call.args[0])) + "-" +
                          std::to_string(NextId(call.world))},
             {"done", true},
             {"response", std::move(response)}};
  FinishLater(op, call);
  call.world["serviceOperations"][op["name"].get<std::string>()] = op;
  return JsonReply(PublicOperation(op));
}

ApiResponse GetService(Call& call) {
  if (Find(call.args[1]) == nullptr) return UnknownService(call.args[1]);
  return JsonReply(ServiceJson(call, call.args[0], call.args[1]));
}

ApiResponse EnableService(Call& call) {
  ApiResponse error;
  if (!call.Body("serviceusage", "EnableServiceRequest", ErrorShape::kAip193, error)) return error;
  if (Find(call.args[1]) == nullptr) return UnknownService(call.args[1]);
  json response = {{"@type", "type.googleapis.com/google.api.serviceusage.v1.EnableServiceResponse"}};
  call.world["serviceStates"][call.args[1]] = "ENABLED";
  response["service"] = ServiceJson(call, call.args[0], call.args[1]);
  return EnableAndAnswer(call, {call.args[1]}, std::move(response));
}

ApiResponse BatchEnable(Call& call) {
  ApiResponse error;
  auto body = call.Body("serviceusage", "BatchEnableServicesRequest", ErrorShape::kAip193, error);
  if (!body) return error;
  std::vector<std::string> services = body->value("serviceIds", std::vector<std::string>{});
  if (services.empty() || services.size() > 20) {
    return Aip193Error(ErrorKind::kInvalidArgument, "serviceIds must name between 1 and 20 services.");
  }
  for (const auto& service : services) {
    if (Find(service) == nullptr) return UnknownService(service);
  }
  for (const auto& service : services) call.world["serviceStates"][service] = "ENABLED";
  json listed = json::array();
  for (const auto& service : services) listed.push_back(ServiceJson(call, call.args[0], service));
  return EnableAndAnswer(
      call, services,
      {{"@type", "type.googleapis.com/google.api.serviceusage.v1.BatchEnableServicesResponse"}, {"services", listed}});
}

ApiResponse ListServices(Call& call) {
  // The one filter gcloud sends: "state:ENABLED" (services list), or none (--available).
  auto filter = call.request.Param("filter").value_or("");
  json services = json::array();
  for (const auto& known : kServices) {
    json service = ServiceJson(call, call.args[0], known.name);
    if (filter == "state:ENABLED" && service["state"] != "ENABLED") continue;
    if (filter == "state:DISABLED" && service["state"] != "DISABLED") continue;
    services.push_back(std::move(service));
  }
  return JsonReply({{"services", services}});
}

ApiResponse GetOperation(Call& call) {
  const json& operations = call.world["serviceOperations"];
  auto it = operations.find("operations/" + call.args[0]);
  if (it == operations.end()) return Aip193Error(ErrorKind::kNotFound, "Operation not found: " + call.args[0]);
  return JsonReply(PublicOperation(*it));
}

}  // namespace

std::vector<Route> ServiceUsageRoutes() {
  static const std::string services = "^/v1/projects/([^/:]+)/services";
  return {
      {"GET", services + "$", "serviceusage.services.list", ListServices},
      {"GET", services + "/([^/:]+)$", "serviceusage.services.get", GetService},
      {"POST", services + "/([^/:]+):enable$", "serviceusage.services.enable", EnableService},
      {"POST", services + ":batchEnable$", "serviceusage.services.batchEnable", BatchEnable},
      {"GET", "^/v1/operations/([^/]+)$", "serviceusage.operations.get", GetOperation},
  };
}

std::optional<ApiResponse> ServiceDisabled(const Call& call, ErrorShape shape) {
  for (const auto& known : kServices) {
    if (*known.method_prefix == '\0' || call.method_id.rfind(known.method_prefix, 0) != 0) continue;
    if (Enabled(call, known.name)) return std::nullopt;
    // The project is the first capture of the APIs whose paths start with it; buckets name none.
    const std::string project =
        call.request.path.find("/projects/") != std::string::npos && !call.args.empty() ? call.args[0] : "";
    const std::string number = std::to_string(ProjectNumber(project.empty() ? "unknown" : project));
    const std::string message = std::string(known.title) + " has not been used in project " + number +
                                " before or it is disabled. Enable it by visiting "
                                "https://console.developers.google.com/apis/api/" +
                                known.name + "/overview?project=" + number +
                                " then retry. If you enabled this API recently, wait a few minutes for the action "
                                "to propagate to our systems and retry.";
    return ErrorFor(shape, ErrorKind::kPermissionDenied, message,
                    json::array({ErrorInfoDetail("SERVICE_DISABLED", "googleapis.com",
                                                 {{"service", known.name}, {"consumer", "projects/" + number}})}));
  }
  return std::nullopt;
}

}  // namespace tputrain::emulator
