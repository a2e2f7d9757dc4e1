#include "stack_sections.h"

#include <filesystem>

#include "template_values.h"
#include "tputrain/catalog/prices.h"
#include "tputrain/core/duration.h"
#include "tputrain/core/file.h"
#include "tputrain/core/gcp_location.h"
#include "tputrain/gcp/iam/types.h"
#include "tputrain/k8s/names.h"
#include "tputrain/render/render.h"

namespace tputrain::workflow::internal {
namespace {

using nlohmann::json;

// Manifests of operators run to a few MiB; the files a stack applies are its own objects.
constexpr size_t kMaxManifestBytes = 4 * core::kMiB;

core::Result<gcp::container::ClusterRef> ClusterOf(const Section& section, const StackSettings& settings,
                                                   const std::string& key) {
  const std::string name = section.Str(key, settings.cluster);
  if (name.empty()) return core::Fail(section.At(key, "no cluster: give one here, or a cluster section"));
  return gcp::container::ClusterRef{settings.project, settings.location, name};
}

core::Status InRange(const Section& section, const std::string& key, int64_t low, int64_t high) {
  if (!section.Has(key)) return {};
  const int64_t value = section.value()[key].get<int64_t>();
  if (value < low || value > high) {
    return core::Fail(section.At(
        key, "expected " + std::to_string(low) + " to " + std::to_string(high) + ", got " + std::to_string(value)));
  }
  return {};
}

StackStep PoolStep(const Section& section, const gcp::container::ClusterRef& cluster,
                   std::vector<gcp::container::NodePoolSpec> pools, const std::string& name, ZoneFailover failover,
                   bool recreate) {
  StackStep step = StepAt(section, "nodepool/" + name, StepKind::kNodePool);
  step.nodepool = NodePoolCreateRequest::Resolved{cluster, std::move(pools), std::move(failover)};
  step.recreate_unusable = recreate;
  return step;
}

}  // namespace

CapacityFlags CapacityOf(const Section& section) {
  return CapacityFlags{section.Str("capacity"), section.Bool("spot"), section.Str("reservation"),
                       section.Str("max-run-duration"), false};
}

std::string Relative(const StackSettings& settings, const std::string& path) {
  if (path.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(settings.dir) / path).lexically_normal().string();
}

StackStep StepAt(const Section& section, std::string id, StepKind kind) {
  StackStep step;
  step.id = std::move(id);
  step.kind = kind;
  step.line = section.line();
  step.path = section.path();
  step.needs = section.Strings("needs");
  return step;
}

Section::Section(const LocatedJson& document, const std::string& file, std::string path)
    : document_(document), file_(file), path_(std::move(path)) {
  value_ = document.value;
  // Walk the path: "a.b[2].c".
  std::string rest = path_;
  while (!rest.empty()) {
    if (rest[0] == '[') {
      const size_t close = rest.find(']');
      value_ = value_.at(std::stoul(rest.substr(1, close - 1)));
      rest = rest.substr(close + 1);
    } else {
      if (rest[0] == '.') rest = rest.substr(1);
      const size_t end = rest.find_first_of(".[");
      value_ = value_.at(rest.substr(0, end));
      rest = end == std::string::npos ? "" : rest.substr(end);
    }
  }
}

Section Section::Child(const std::string& key) const { return Section(document_, file_, ChildPath(path_, key)); }
Section Section::Item(size_t index) const { return Section(document_, file_, ItemPath(path_, index)); }

std::string Section::Str(const std::string& key, const std::string& fallback) const {
  auto it = value_.find(key);
  if (it == value_.end() || it->is_null()) return fallback;
  return it->is_string() ? it->get<std::string>() : it->dump();
}

bool Section::Bool(const std::string& key) const {
  auto it = value_.find(key);
  return it != value_.end() && it->is_boolean() && it->get<bool>();
}

std::string Section::Number(const std::string& key, const std::string& fallback) const { return Str(key, fallback); }

std::vector<std::string> Section::Strings(const std::string& key) const {
  std::vector<std::string> out;
  auto it = value_.find(key);
  if (it == value_.end() || !it->is_array()) return out;
  for (const auto& item : *it) out.push_back(item.is_string() ? item.get<std::string>() : item.dump());
  return out;
}

core::Error Section::At(const std::string& key, const std::string& message) const {
  const std::string path = key.empty() ? path_ : ChildPath(path_, key);
  return core::Error::Usage(Where(file_, document_.LineOf(path), path, message));
}

core::Error Section::Reworded(const core::Error& error) const {
  std::string message = error.message;
  std::string key;
  const size_t colon = message.find(": ");
  if (colon != std::string::npos) {
    const std::string label = message.substr(0, colon);
    if (label.rfind("--", 0) == 0 && label.find(' ') == std::string::npos) {
      key = label.substr(2);
    } else if (label == "NAME" || label == "name") {
      key = "name";
    } else if (label == "SERVICE" || label == "DIR") {
      key = "";
    }
    if (!key.empty() || label == "SERVICE" || label == "DIR") message = message.substr(colon + 2);
  }
  // --location is the stack's own `location`, not a key of the section: said at the section.
  if (key == "location" && !Has(key)) return At("", "location: " + message);
  core::Error reworded = At(key, message);
  return reworded;
}

std::string Fingerprint(const json& value) {
  uint64_t hash = 1469598103934665603ULL;
  for (unsigned char c : value.dump()) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  static const char kHex[] = "0123456789abcdef";
  std::string text(16, '0');
  for (int i = 15; i >= 0; --i, hash >>= 4) text[static_cast<size_t>(i)] = kHex[hash & 15];
  return text;
}

core::Result<StackStep> ClusterStep(const Section& section, const StackSettings& settings,
                                    std::vector<StackStep>& pools) {
  ClusterCreateRequest request;
  request.project = settings.project;
  request.location = settings.location;
  request.name = section.Str("name");
  request.autopilot = section.Bool("autopilot");
  request.ray_operator = section.Bool("ray-operator");
  request.gcs_fuse = section.Bool("gcs-fuse");
  request.workload_identity = section.Bool("workload-identity");
  request.workload_pool = section.Str("workload-pool");
  request.machine_type = section.Str("machine-type");
  request.num_nodes = section.Number("num-nodes", "3");
  request.cluster_version = section.Str("cluster-version");
  request.scopes = section.Strings("scopes");
  request.node_locations = section.Strings("node-locations");
  request.pool.tpu_type = section.Str("tpu-type");
  if (auto range = InRange(section, "num-slices", 1, 64); !range) return core::Fail(range.error());
  if (section.Has("num-slices")) request.pool.num_slices = section.value()["num-slices"].get<int>();
  request.pool.capacity = CapacityOf(section);
  request.pool.skip_zone_check = section.Bool("skip-zone-check");
  auto resolved = request.Resolve();
  if (!resolved) return core::Fail(section.Reworded(resolved.error()));
  const bool recreate = section.Bool("recreate-unusable");
  // The slice's pools are steps of their own, each made as soon as the cluster runs.
  for (auto& pool : resolved->pools) {
    const std::string name = pool.name;
    pools.push_back(PoolStep(section, resolved->ref, {std::move(pool)}, name, {}, recreate));
    pools.back().needs = {"cluster"};
  }
  resolved->pools.clear();
  StackStep step = StepAt(section, "cluster", StepKind::kCluster);
  step.cluster = std::move(*resolved);
  step.recreate_unusable = recreate;
  return step;
}

core::Result<std::vector<StackStep>> NodePoolSteps(const Section& section, const StackSettings& settings) {
  std::vector<StackStep> steps;
  auto cluster = ClusterOf(section, settings, "cluster");
  if (!cluster) return core::Fail(cluster.error());
  NodePoolCreateRequest request;
  request.cluster = *cluster;
  request.name = section.Str("name");
  auto& pool = request.pool;
  pool.tpu_type = section.Str("tpu-type");
  pool.machine_type = section.Str("machine-type");
  if (section.Has("num-nodes")) pool.num_nodes = section.value()["num-nodes"].get<int>();
  pool.disk_size = section.Str("disk-size");
  pool.scopes = section.Strings("scopes");
  pool.tpu_topology = section.Str("tpu-topology");
  for (const auto& [key, low, high] :
       {std::tuple{"num-slices", 1, 64}, std::tuple{"threads-per-core", 1, 2}, std::tuple{"num-nodes", 0, 1000}}) {
    if (auto range = InRange(section, key, low, high); !range) return core::Fail(range.error());
  }
  if (section.Has("num-slices")) pool.num_slices = section.value()["num-slices"].get<int>();
  pool.placement_type = section.Str("placement-type");
  pool.workload_metadata = section.Str("workload-metadata");
  if (section.Has("threads-per-core")) pool.threads_per_core = section.value()["threads-per-core"].get<int>();
  pool.node_locations = section.Strings("node-locations");
  pool.placement_policy = section.Str("placement-policy");
  pool.node_version = section.Str("node-version");
  pool.skip_zone_check = section.Bool("skip-zone-check");
  pool.capacity = CapacityOf(section);
  request.failover = FailoverFlags{section.Strings("zones"), section.Bool("retry-until-up"), section.Str("retry-gap")};
  auto resolved = request.Resolve();
  if (!resolved) return core::Fail(section.Reworded(resolved.error()));
  steps.push_back(PoolStep(section, resolved->cluster, std::move(resolved->pools), request.name,
                           std::move(resolved->failover), section.Bool("recreate-unusable")));
  if (resolved->cluster.cluster == settings.cluster) steps.back().needs.push_back("cluster");
  return steps;
}

core::Result<StackStep> BucketStep(const Section& section) {
  BucketCreateRequest request{section.Str("name"), section.Str("bucket-location"), section.Str("storage-class"),
                              section.Bool("uniform-bucket-level-access")};
  auto spec = request.Resolve();
  if (!spec) return core::Fail(section.Reworded(spec.error()));
  StackStep step = StepAt(section, "bucket", StepKind::kBucket);
  step.bucket = std::move(*spec);
  return step;
}

core::Result<StackStep> ServiceAccountStep(const Section& section, const StackSettings& settings) {
  ServiceAccountCreateRequest request{settings.project, section.Str("name"), section.Str("display-name"),
                                      section.Strings("role")};
  if (auto valid = request.Check(); !valid) return core::Fail(section.Reworded(valid.error()));
  StackStep step = StepAt(section, "service-account/" + request.account, StepKind::kServiceAccount);
  step.service_account = std::move(request);
  return step;
}

core::Result<StackStep> IdentityStep(const Section& section, const StackSettings& settings) {
  WorkloadIdentityRequest request{section.Str("ksa"), section.Str("bucket"), section.Bool("project-role"),
                                  section.Str("gsa"), section.Str("role"),   section.Bool("annotate-ksa")};
  auto resolved = request.Resolve();
  if (!resolved) return core::Fail(section.Reworded(resolved.error()));
  StackStep step = StepAt(section, "identity/" + resolved->ns + "/" + resolved->ksa, StepKind::kIdentity);
  // What it binds to, when the stack makes it, comes first.
  if (!resolved->bucket.empty() && resolved->bucket == BucketNameOf(settings.bucket)) step.needs.push_back("bucket");
  const std::string suffix = "@" + settings.project + ".iam.gserviceaccount.com";
  if (resolved->gsa.size() > suffix.size() &&
      resolved->gsa.compare(resolved->gsa.size() - suffix.size(), suffix.size(), suffix) == 0) {
    step.needs.push_back("service-account/" + resolved->gsa.substr(0, resolved->gsa.size() - suffix.size()));
  }
  if (resolved->annotate_ksa) {
    if (settings.cluster.empty()) return core::Fail(section.At("annotate-ksa", "needs the stack's cluster"));
    step.needs.push_back("cluster");
  }
  step.identity = std::move(*resolved);
  return step;
}

core::Result<StackStep> RegistryStep(const Section& section, const StackSettings& settings) {
  RepositoryCreateRequest request{settings.project, settings.location, section.Str("name"), section.Str("description"),
                                  section.Strings("labels")};
  auto ref = request.Ref();
  if (!ref) return core::Fail(section.Reworded(ref.error()));
  auto spec = request.Spec();
  if (!spec) return core::Fail(section.Reworded(spec.error()));
  StackStep step = StepAt(section, "registry", StepKind::kRegistry);
  step.registry = *ref;
  step.registry_spec = std::move(*spec);
  return step;
}

core::Result<StackStep> ImageStep(const Section& section, const StackSettings& settings) {
  const bool rendered = section.Has("render");
  if (rendered == section.Has("dir")) return core::Fail(section.At("", "give one of dir and render"));
  if (!rendered && section.Has("set")) return core::Fail(section.At("set", "only with render"));
  ImageBuildFlags flags{
      settings.project,   settings.location,      rendered ? "." : Relative(settings, section.Str("dir")),
      section.Str("tag"), section.Str("timeout"), section.Str("max-context-size", "1GiB")};
  auto request = flags.Resolve();
  if (!request) return core::Fail(section.Reworded(request.error()));
  StackImage image;
  image.request = std::move(*request);
  if (rendered) {
    image.request.context_dir.clear();
    image.render_template = section.Str("render");
    image.render_sets = section.Strings("set");
    image.template_dirs = settings.context->template_dirs;
    image.configuration = {{"PROJECT_ID", settings.project}, {"LOCATION", settings.location}};
    // Rendered once here, so that a template or a value it lacks is said before any call.
    render::RenderRequest render{image.render_template, image.template_dirs, image.render_sets,  {},
                                 std::nullopt,          image.configuration, SliceTemplateValues};
    if (auto checked = render::RenderTemplate(render); !checked) {
      return core::Fail(section.At("render", checked.error().message));
    }
  } else if (!std::filesystem::is_directory(image.request.context_dir)) {
    return core::Fail(section.At("dir", "expected a directory, got '" + image.request.context_dir.string() + "'"));
  }
  StackStep step = StepAt(section, "image", StepKind::kImage);
  if (!settings.registry.empty() && image.request.image.repository == settings.registry) {
    step.needs.push_back("registry");
  }
  step.image = std::move(image);
  return step;
}

core::Result<StackStep> ApplyStep(const Section& section, const StackSettings& settings) {
  auto cluster = ClusterOf(section, settings, "");
  if (!cluster) return core::Fail(cluster.error());
  StackApply apply;
  apply.cluster = *cluster;
  apply.ns = section.Str("namespace");
  apply.queue = section.Str("queue");
  apply.force_conflicts = section.Bool("force-conflicts");
  if (!apply.ns.empty()) {
    if (auto valid = k8s::CheckNamespace("--namespace", apply.ns); !valid) {
      return core::Fail(section.Reworded(valid.error()));
    }
  }
  const auto files = section.Strings("files");
  for (size_t i = 0; i < files.size(); ++i) {
    const Section item = section.Child("files").Item(i);
    auto text = core::ReadFile(Relative(settings, files[i]), "", kMaxManifestBytes);
    if (!text) return core::Fail(item.At("", text.error().message));
    auto objects = k8s::ParseManifests(*text, files[i]);
    if (!objects) return core::Fail(item.At("", objects.error().message));
    for (auto& object : *objects) apply.objects.push_back(std::move(object));
  }
  if (section.Has("manifests")) {
    const json& manifests = section.value()["manifests"];
    for (size_t i = 0; i < manifests.size(); ++i) {
      const Section item = section.Child("manifests").Item(i);
      auto objects = k8s::ParseManifests(manifests[i].dump(), item.path());
      if (!objects) return core::Fail(item.At("", objects.error().message));
      for (auto& object : *objects) apply.objects.push_back(std::move(object));
    }
  }
  if (apply.objects.empty()) return core::Fail(section.At("", "nothing to apply: give files or manifests"));
  StackStep step = StepAt(section, "apply", StepKind::kApply);
  step.needs.push_back("cluster");
  json objects = json::array();
  for (const auto& object : apply.objects) objects.push_back(object.json);
  step.fingerprint = Fingerprint(
      {{"namespace", apply.ns}, {"objects", objects}, {"cluster", cluster->Name()}, {"queue", apply.queue}});
  step.apply = std::move(apply);
  return step;
}

core::Result<StackStep> WorkloadStep(const Section& section, const StackSettings& settings) {
  if (int{section.Has("submit")} + int{section.Has("serve")} + int{section.Has("job")} != 1) {
    return core::Fail(section.At("", "expected one of its keys: submit, serve, job"));
  }
  json fingerprinted = section.value();
  fingerprinted.erase("needs");
  if (section.Has("job")) {
    StackWorkload workload;
    if (auto checked = JobWorkload(section.Child("job"), settings, workload); !checked) {
      return core::Fail(checked.error());
    }
    StackStep step = StepAt(section, "workload", StepKind::kWorkload);
    step.fingerprint = Fingerprint(fingerprinted);
    step.workload = std::move(workload);
    return step;
  }
  if (section.Has("serve")) {
    const Section serve = section.Child("serve");
    auto cluster = ClusterOf(serve, settings, "cluster");
    if (!cluster) return core::Fail(cluster.error());
    StackWorkload workload;
    workload.cluster = *cluster;
    workload.ns = serve.Str("namespace");
    if (!workload.ns.empty()) {
      if (auto valid = k8s::CheckNamespace("--namespace", workload.ns); !valid) {
        return core::Fail(serve.Reworded(valid.error()));
      }
    }
    if (auto checked = ServeWorkload(serve, settings, workload); !checked) return core::Fail(checked.error());
    StackStep step = StepAt(section, "workload", StepKind::kWorkload);
    step.fingerprint = Fingerprint(fingerprinted);
    step.workload = std::move(workload);
    return step;
  }
  const Section submit = section.Child("submit");
  StackWorkload workload;
  if (submit.Has("tpu-vm")) {
    // On a TPU VM's own Ray: no cluster, no RayCluster.
    for (const char* key : {"cluster", "namespace", "raycluster", "image", "raycluster-template", "raycluster-set",
                            "raycluster-values", "capacity", "ready-timeout", "queue"}) {
      if (submit.Has(key)) return core::Fail(submit.At(key, "a RayCluster's, not with tpu-vm"));
    }
    auto node = TpuVmTargetOf(submit, settings);
    if (!node) return core::Fail(node.error());
    workload.tpu_vm = *node;
  }
  auto cluster = workload.tpu_vm ? core::Result<gcp::container::ClusterRef>(gcp::container::ClusterRef{})
                                 : ClusterOf(submit, settings, "cluster");
  if (!cluster) return core::Fail(cluster.error());
  workload.cluster = *cluster;
  workload.ns = submit.Str("namespace");
  if (!workload.ns.empty()) {
    if (auto valid = k8s::CheckNamespace("--namespace", workload.ns); !valid) {
      return core::Fail(submit.Reworded(valid.error()));
    }
  }
  SubmitSpec spec;
  spec.model = submit.Str("model");
  spec.tpu_type = submit.Str("tpu-type");
  if (submit.Has("steps")) {
    if (auto range = InRange(submit, "steps", 1, 1'000'000'000'000); !range) return core::Fail(range.error());
    spec.steps = submit.value()["steps"].get<int64_t>();
  }
  spec.sets = submit.Strings("set");
  spec.env = submit.Strings("env");
  spec.run_name = submit.Str("run-name");
  spec.output_dir = submit.Str("output-dir");
  spec.launcher = submit.Str("launcher");
  spec.working_dir = Relative(settings, submit.Str("working-dir"));
  spec.submission_id = submit.Str("submission-id");
  // The job as submit builds it: a model, slice or value it would refuse is refused here.
  if (auto job = BuildMaxTextJob(spec, settings.context->clock); !job) {
    return core::Fail(submit.Reworded(job.error()));
  }
  RayClusterRequest raycluster;
  raycluster.name = submit.Str("raycluster");
  raycluster.ns = workload.ns;
  raycluster.template_name = submit.Str("raycluster-template");
  raycluster.template_dirs = settings.context->template_dirs;
  raycluster.image = submit.Str("image");
  raycluster.sets = submit.Strings("raycluster-set");
  if (submit.Has("raycluster-values")) {
    for (const auto& item : submit.value()["raycluster-values"]) {
      if (item.is_object()) {
        workload.inline_values.push_back(item);
      } else {
        raycluster.values_files.push_back(Relative(settings, item.get<std::string>()));
      }
    }
  }
  raycluster.configuration = {{"PROJECT_ID", settings.project},
                              {"LOCATION", settings.location},
                              {"REGION", core::RegionOf(settings.location)},
                              {"CLUSTER_NAME", cluster->cluster}};
  if (!settings.bucket.empty()) raycluster.configuration["BUCKET"] = BucketNameOf(settings.bucket);
  if (submit.Has("ready-timeout")) {
    auto timeout = core::ParseDuration("--ready-timeout", submit.Str("ready-timeout"));
    if (!timeout) return core::Fail(submit.Reworded(timeout.error()));
    raycluster.ready_timeout = *timeout;
  }
  raycluster.queue = submit.Str("queue");
  raycluster.capacity =
      catalog::ParseCapacityMode(submit.Str("capacity", "on-demand")).value_or(CapacityMode::kOnDemand);
  workload.submit = SubmitRequest{spec, std::nullopt, true, false};
  if (!workload.tpu_vm) workload.submit.raycluster = std::move(raycluster);
  StackStep step = StepAt(section, "workload", StepKind::kWorkload);
  step.fingerprint = Fingerprint(fingerprinted);
  step.workload = std::move(workload);
  return step;
}

}  // namespace tputrain::workflow::internal
