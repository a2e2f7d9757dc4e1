#include "tputrain/k8s/kueue.h"

#include <algorithm>
#include <map>

#include "tputrain/core/json_fields.h"
#include "tputrain/k8s/names.h"

namespace tputrain::k8s::kueue {
namespace {

using nlohmann::json;

constexpr const char* kAcceleratorLabel = "cloud.google.com/gke-tpu-accelerator";
constexpr const char* kTopologyLabel = "cloud.google.com/gke-tpu-topology";
constexpr const char* kManagedBy = "app.kubernetes.io/managed-by";
// Long enough for "<queue>-<accelerator>-<topology>-dws" within a DNS subdomain, and readable.
constexpr size_t kMaxQueueName = 40;
// CPU, memory and local storage are not what a TPU queue rations: quota no cluster reaches.
constexpr int64_t kUnlimitedCpu = 1'000'000;
constexpr const char* kUnlimitedMemory = "1000000Gi";

json Metadata(const std::string& name, const std::string& ns = "") {
  json metadata = {{"name", name}, {"labels", {{kManagedBy, "tputrain"}}}};
  if (!ns.empty()) metadata["namespace"] = ns;
  return metadata;
}

Object Make(const std::string& kind, json body) {
  Object object;
  object.api_version = std::string(kApiVersion);
  object.kind = kind;
  object.name = body["metadata"]["name"];
  object.ns = core::StringAt(body["metadata"], "namespace");
  object.source = "queue";
  body["apiVersion"] = object.api_version;
  body["kind"] = kind;
  object.json = std::move(body);
  return object;
}

// A pod spec that selects TPU nodes gets GKE's queued-provisioning selector and toleration.
int AddQueuedNodes(json& node) {
  int changed = 0;
  if (node.is_array()) {
    for (auto& item : node) changed += AddQueuedNodes(item);
    return changed;
  }
  if (!node.is_object()) return 0;
  auto selector = node.find("nodeSelector");
  if (selector != node.end() && selector->is_object() && selector->contains(kAcceleratorLabel)) {
    (*selector)[std::string(kQueuedNodeLabel)] = "true";
    json toleration = {
        {"key", std::string(kQueuedNodeLabel)}, {"operator", "Equal"}, {"value", "true"}, {"effect", "NoSchedule"}};
    auto& tolerations = node["tolerations"];
    if (!tolerations.is_array()) tolerations = json::array();
    if (std::find(tolerations.begin(), tolerations.end(), toleration) == tolerations.end()) {
      tolerations.push_back(toleration);
    }
    return 1;
  }
  for (auto& [key, value] : node.items()) changed += AddQueuedNodes(value);
  return changed;
}

}  // namespace

std::vector<TpuShape> TpuShapesOfNodes(const json& node_list) {
  std::map<std::pair<std::string, std::string>, TpuShape> shapes;
  for (const auto& node : core::ArrayAt(node_list, "items")) {
    const auto& labels = core::ObjectAt(core::ObjectAt(node, "metadata"), "labels");
    std::string accelerator = core::StringAt(labels, kAcceleratorLabel);
    std::string topology = core::StringAt(labels, kTopologyLabel);
    if (accelerator.empty() || topology.empty()) continue;
    auto& shape = shapes[{accelerator, topology}];
    shape.accelerator = accelerator;
    shape.topology = topology;
    ++shape.nodes;
    // Allocatable extended resources are integers, written as strings ("4").
    const auto& allocatable = core::ObjectAt(core::ObjectAt(node, "status"), "allocatable");
    std::string chips = core::StringAt(allocatable, kTpuResource);
    if (!chips.empty() && std::all_of(chips.begin(), chips.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
        chips.size() < 7) {
      shape.chips += std::stoll(chips);
    }
  }
  std::vector<TpuShape> out;
  for (auto& [key, shape] : shapes) out.push_back(std::move(shape));
  return out;
}

std::string FlavorName(const std::string& queue, const TpuShape& shape) {
  return queue + "-" + shape.accelerator + "-" + shape.topology;
}

std::string CpuFlavorName(const std::string& queue) { return queue + "-cpu"; }

std::string AdmissionCheckName(const std::string& flavor) { return flavor + "-dws"; }

core::Status ValidateQueueName(std::string_view flag, const std::string& name) {
  if (auto valid = CheckNamespace(flag, name); !valid) return valid;
  if (name.size() > kMaxQueueName) {
    return core::Fail(core::Error::Usage(std::string(flag) + ": at most " + std::to_string(kMaxQueueName) +
                                         " characters (its flavors and checks are named after it), got " +
                                         std::to_string(name.size())));
  }
  return {};
}

std::vector<Object> RenderQueue(const QueueSpec& spec) {
  std::vector<Object> objects;
  json tpu_flavors = json::array();
  json checks = json::array();
  for (const auto& shape : spec.shapes) {
    const std::string flavor = FlavorName(spec.name, shape);
    objects.push_back(Make(
        "ResourceFlavor",
        {{"metadata", Metadata(flavor)},
         {"spec",
          {{"nodeLabels", {{kAcceleratorLabel, shape.accelerator}, {kTopologyLabel, shape.topology}}},
           {"tolerations",
            json::array({{{"key", std::string(kTpuResource)}, {"operator", "Exists"}, {"effect", "NoSchedule"}}})}}}}));
    tpu_flavors.push_back(
        {{"name", flavor},
         {"resources", json::array({{{"name", std::string(kTpuResource)}, {"nominalQuota", shape.chips}}})}});
    if (!spec.provisioning) continue;
    const std::string check = AdmissionCheckName(flavor);
    // GKE's queued provisioning, for this shape's slices; the node selector GKE's how-to gives,
    // which pins the pods to the nodes provisioned for their request.
    objects.push_back(
        Make("ProvisioningRequestConfig",
             {{"metadata", Metadata(check)},
              {"spec",
               {{"provisioningClassName", std::string(kQueuedProvisioningClass)},
                {"managedResources", json::array({std::string(kTpuResource)})},
                {"parameters", {{"tpu-topology", shape.topology}}},
                {"podSetUpdates",
                 {{"nodeSelector", json::array({{{"key", "autoscaling.gke.io/provisioning-request"},
                                                 {"valueFromProvisioningClassDetail", "ResizeRequestName"}}})}}}}}}));
    objects.push_back(
        Make("AdmissionCheck",
             {{"metadata", Metadata(check)},
              {"spec",
               {{"controllerName", std::string(kProvisioningController)},
                {"parameters",
                 {{"apiGroup", "kueue.x-k8s.io"}, {"kind", "ProvisioningRequestConfig"}, {"name", check}}}}}}));
    checks.push_back({{"name", check}, {"onFlavors", json::array({flavor})}});
  }
  const std::string cpu = CpuFlavorName(spec.name);
  objects.push_back(Make("ResourceFlavor", {{"metadata", Metadata(cpu)}, {"spec", json::object()}}));

  json cq_spec = {
      {"namespaceSelector", json::object()},
      {"queueingStrategy", "BestEffortFIFO"},
      {"resourceGroups",
       json::array({{{"coveredResources", json::array({std::string(kTpuResource)})}, {"flavors", tpu_flavors}},
                    {{"coveredResources", json::array({"cpu", "memory", "ephemeral-storage"})},
                     {"flavors", json::array({{{"name", cpu},
                                               {"resources",
                                                json::array({
                                                    {{"name", "cpu"}, {"nominalQuota", kUnlimitedCpu}},
                                                    {{"name", "memory"}, {"nominalQuota", kUnlimitedMemory}},
                                                    {{"name", "ephemeral-storage"}, {"nominalQuota", kUnlimitedMemory}},
                                                })}}})}}})},
  };
  if (!checks.empty()) cq_spec["admissionChecksStrategy"] = {{"admissionChecks", checks}};
  objects.push_back(Make("ClusterQueue", {{"metadata", Metadata(spec.name)}, {"spec", cq_spec}}));
  objects.push_back(
      Make("LocalQueue", {{"metadata", Metadata(spec.name, spec.ns)}, {"spec", {{"clusterQueue", spec.name}}}}));
  return objects;
}

bool IsQueueableKind(std::string_view api_version, std::string_view kind) {
  std::string_view group = api_version.substr(0, api_version.find('/'));
  return (group == "ray.io" && (kind == "RayCluster" || kind == "RayJob")) ||
         (group == "leaderworkerset.x-k8s.io" && kind == "LeaderWorkerSet") ||
         (group == "jobset.x-k8s.io" && kind == "JobSet") || (group == "batch" && kind == "Job");
}

core::Result<int> LabelForQueue(std::vector<Object>& objects, const QueueLabelling& labelling, std::string_view flag) {
  int labelled = 0;
  std::string kinds;
  for (auto& object : objects) {
    if (!IsQueueableKind(object.api_version, object.kind)) {
      kinds += (kinds.empty() ? "" : ", ") + object.kind;
      continue;
    }
    auto& metadata = object.json["metadata"];
    metadata["labels"][std::string(kQueueNameLabel)] = labelling.queue;
    if (labelling.provisioning) {
      metadata["annotations"][std::string(kMaxRunDurationAnnotation)] =
          std::to_string(labelling.max_run_duration.count());
      if (object.json.contains("spec")) AddQueuedNodes(object.json["spec"]);
    }
    ++labelled;
  }
  if (labelled == 0) {
    return core::Fail(core::Error::Usage(std::string(flag) +
                                         ": nothing here waits in a Kueue queue (expected a RayCluster, RayJob, "
                                         "LeaderWorkerSet, JobSet or Job; got " +
                                         (kinds.empty() ? std::string("no objects") : kinds) + ")"));
  }
  return labelled;
}

}  // namespace tputrain::k8s::kueue
