// A stack file to its steps: read, checked against the schema, each section checked as its
// command checks its flags, and the graph made (what each step waits for, in an order).
#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>

#include "json_schema.h"
#include "stack_sections.h"
#include "stack_yaml.h"
#include "tputrain/core/duration.h"
#include "tputrain/core/file.h"
#include "tputrain/gcp/names.h"
#include "tputrain/state/ledger.h"
#include "tputrain/workflow/stack.h"

namespace tputrain::workflow {
namespace {

using internal::LocatedJson;
using internal::Section;
using internal::StackSettings;
using nlohmann::json;

core::Status CheckAgainstSchema(const LocatedJson& document, const std::string& file) {
  static const json schema = json::parse(StackSchemaJson());
  auto problems = internal::CheckSchema(document.value, schema, schema);
  if (problems.empty()) return {};
  // The first in the file, as a reader meets it.
  auto first = std::min_element(problems.begin(), problems.end(), [&](const auto& a, const auto& b) {
    return document.LineOf(a.path) < document.LineOf(b.path);
  });
  return core::Fail(
      core::Error::Usage(internal::Where(file, document.LineOf(first->path), first->path, first->problem)));
}

core::Status CheckTop(const Section& top) {
  const json& value = top.value();
  const std::string name = value["name"].is_string() ? value["name"].get<std::string>() : value["name"].dump();
  if (auto valid = state::ValidateNewRunId("name", name); !valid) return core::Fail(top.Reworded(valid.error()));
  if (auto valid = gcp::CheckProjectId("--project", top.Str("project")); !valid) {
    return core::Fail(top.Reworded(valid.error()));
  }
  if (auto valid = gcp::CheckLocation("--location", top.Str("location")); !valid) {
    return core::Fail(top.Reworded(valid.error()));
  }
  if (top.Has("ttl")) {
    if (auto ttl = core::ParseDuration("--ttl", top.Str("ttl")); !ttl) return core::Fail(top.Reworded(ttl.error()));
  }
  if (auto valid = CheckServiceNames(top.Strings("services")); !valid) {
    return core::Fail(top.At("services", valid.error().message.substr(valid.error().message.find(": ") + 2)));
  }
  return {};
}

// Every step's section, in the file's order of sections.
core::Result<std::vector<StackStep>> Steps(const Section& top, const StackSettings& settings) {
  std::vector<StackStep> steps;
  auto add = [&](core::Result<StackStep> step) -> core::Status {
    if (!step) return core::Fail(step.error());
    steps.push_back(std::move(*step));
    return {};
  };
  if (top.Has("services")) {
    StackStep step;
    step.id = "services";
    step.kind = StepKind::kServices;
    step.line = top.Child("services").line();
    step.path = "services";
    step.services = top.Strings("services");
    steps.push_back(std::move(step));
  }
  if (top.Has("cluster")) {
    std::vector<StackStep> pools;
    if (auto status = add(internal::ClusterStep(top.Child("cluster"), settings, pools)); !status)
      return core::Fail(status.error());
    for (auto& pool : pools) steps.push_back(std::move(pool));
  }
  if (top.Has("nodepools")) {
    for (size_t i = 0; i < top.value()["nodepools"].size(); ++i) {
      auto pools = internal::NodePoolSteps(top.Child("nodepools").Item(i), settings);
      if (!pools) return core::Fail(pools.error());
      for (auto& pool : *pools) steps.push_back(std::move(pool));
    }
  }
  if (top.Has("bucket")) {
    if (auto status = add(internal::BucketStep(top.Child("bucket"))); !status) return core::Fail(status.error());
  }
  const std::pair<const char*, std::function<core::Result<StackStep>(const Section&, const StackSettings&)>> lists[] = {
      {"tpu-vms", internal::TpuVmStep},
      {"service-accounts", internal::ServiceAccountStep},
      {"identity", internal::IdentityStep}};
  for (const auto& [key, make] : lists) {
    if (!top.Has(key)) continue;
    for (size_t i = 0; i < top.value()[key].size(); ++i) {
      if (auto status = add(make(top.Child(key).Item(i), settings)); !status) return core::Fail(status.error());
    }
  }
  const std::pair<const char*, std::function<core::Result<StackStep>(const Section&, const StackSettings&)>> once[] = {
      {"registry", internal::RegistryStep},
      {"image", internal::ImageStep},
      {"apply", internal::ApplyStep},
      {"workload", internal::WorkloadStep}};
  for (const auto& [key, make] : once) {
    if (!top.Has(key)) continue;
    if (auto status = add(make(top.Child(key), settings)); !status) return core::Fail(status.error());
  }
  return steps;
}

// Two steps with one id (two pools of one name, one KSA bound twice) are one mistake.
core::Status CheckUnique(const std::vector<StackStep>& steps, const std::string& file) {
  std::set<std::string> seen;
  for (const auto& step : steps) {
    if (!seen.insert(step.id).second) {
      return core::Fail(core::Error::Usage(internal::Where(
          file, step.line, step.path, "a second step " + step.id + " (each pool, account and KSA once)")));
    }
  }
  return {};
}

// What the graph adds to what the sections say: the APIs first, the workload last (after what
// the stack makes for it to run on and with).
void AddImplicitNeeds(std::vector<StackStep>& steps) {
  const bool services = std::any_of(steps.begin(), steps.end(), [](const auto& s) { return s.id == "services"; });
  for (auto& step : steps) {
    if (services && step.id != "services") step.needs.push_back("services");
    if (step.kind != StepKind::kWorkload) continue;
    for (const auto& other : steps) {
      if (other.kind != StepKind::kWorkload && other.kind != StepKind::kServices) step.needs.push_back(other.id);
    }
  }
  for (auto& step : steps) {
    std::sort(step.needs.begin(), step.needs.end());
    step.needs.erase(std::unique(step.needs.begin(), step.needs.end()), step.needs.end());
  }
}

// Each `needs` names a step; no step waits for itself through others. Then an order.
core::Result<std::vector<StackStep>> Ordered(std::vector<StackStep> steps, const LocatedJson& document,
                                             const std::string& file) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < steps.size(); ++i) index[steps[i].id] = i;
  for (const auto& step : steps) {
    for (const auto& need : step.needs) {
      if (index.count(need) == 0) {
        const std::string path = internal::ChildPath(step.path, "needs");
        return core::Fail(core::Error::Usage(
            internal::Where(file, document.LineOf(path), path, "no step " + need + " in this stack")));
      }
    }
  }
  enum class Mark { kNone, kVisiting, kDone };
  std::vector<Mark> marks(steps.size(), Mark::kNone);
  std::vector<size_t> order;
  std::vector<size_t> trail;
  std::function<core::Status(size_t)> visit = [&](size_t i) -> core::Status {
    if (marks[i] == Mark::kDone) return {};
    if (marks[i] == Mark::kVisiting) {
      std::string cycle;
      auto from = std::find(trail.begin(), trail.end(), i);
      for (auto it = from; it != trail.end(); ++it) cycle += steps[*it].id + " -> ";
      cycle += steps[i].id;
      return core::Fail(core::Error::Usage(
          internal::Where(file, steps[i].line, internal::ChildPath(steps[i].path, "needs"), "a cycle: " + cycle)));
    }
    marks[i] = Mark::kVisiting;
    trail.push_back(i);
    for (const auto& need : steps[i].needs) {
      if (auto status = visit(index[need]); !status) return status;
    }
    trail.pop_back();
    marks[i] = Mark::kDone;
    order.push_back(i);
    return {};
  };
  for (size_t i = 0; i < steps.size(); ++i) {
    if (auto status = visit(i); !status) return core::Fail(status.error());
  }
  std::vector<StackStep> ordered;
  for (size_t i : order) ordered.push_back(std::move(steps[i]));
  return ordered;
}

}  // namespace

std::string_view StepKindName(StepKind kind) {
  switch (kind) {
    case StepKind::kServices:
      return "services";
    case StepKind::kCluster:
      return "cluster";
    case StepKind::kNodePool:
      return "nodepool";
    case StepKind::kTpuVm:
      return "tpu-vm";
    case StepKind::kBucket:
      return "bucket";
    case StepKind::kServiceAccount:
      return "service-account";
    case StepKind::kIdentity:
      return "identity";
    case StepKind::kRegistry:
      return "registry";
    case StepKind::kImage:
      return "image";
    case StepKind::kApply:
      return "apply";
    case StepKind::kWorkload:
      return "workload";
  }
  return "unknown";
}

std::vector<std::string> Stack::Secrets() const {
  std::vector<std::string> secrets;
  for (const auto& step : steps) {
    if (step.tpu_vm && !step.tpu_vm->ray_token.empty()) secrets.push_back(step.tpu_vm->ray_token);
    // The Hugging Face token a vLLM serve step's Secret is made from.
    if (step.workload && step.workload->vllm && step.workload->vllm->hf_token) {
      secrets.push_back(*step.workload->vllm->hf_token);
    }
  }
  return secrets;
}

const StackStep* Stack::Find(std::string_view id) const {
  for (const auto& step : steps) {
    if (step.id == id) return &step;
  }
  return nullptr;
}

std::vector<std::string> Stack::Dependents(std::string_view id) const {
  std::vector<std::string> out;
  for (const auto& step : steps) {
    if (std::find(step.needs.begin(), step.needs.end(), id) != step.needs.end()) out.push_back(step.id);
  }
  return out;
}

core::Result<Stack> LoadStack(const std::string& path, const core::Env& env, const StackLoadContext& context) {
  auto text = core::ReadFile(path, "-f", internal::kStackFileMaxBytes);
  if (!text) return core::Fail(text.error());
  auto document = internal::LoadLocatedYaml(*text, path, env, "apply.manifests");
  if (!document) return core::Fail(document.error());
  if (!document->value.is_object()) {
    return core::Fail(core::Error::Usage(internal::Where(path, 1, "", "expected a map of keys (name, project, ...)")));
  }
  if (auto valid = CheckAgainstSchema(*document, path); !valid) return core::Fail(valid.error());
  const Section top(*document, path, "");
  if (auto valid = CheckTop(top); !valid) return core::Fail(valid.error());
  StackSettings settings;
  settings.project = top.Str("project");
  settings.location = top.Str("location");
  if (top.Has("cluster")) settings.cluster = top.Child("cluster").Str("name");
  if (top.Has("bucket")) settings.bucket = top.Child("bucket").Str("name");
  if (top.Has("registry")) settings.registry = top.Child("registry").Str("name");
  if (top.Has("tpu-vms")) {
    for (size_t i = 0; i < top.value()["tpu-vms"].size(); ++i) {
      const Section vm = top.Child("tpu-vms").Item(i);
      settings.tpu_vm_zones[vm.Str("name")] = vm.Has("zones") ? "" : vm.Str("zone", settings.location);
    }
  }
  settings.dir = std::filesystem::path(path).parent_path().string();
  if (settings.dir.empty()) settings.dir = ".";
  settings.context = &context;
  auto steps = Steps(top, settings);
  if (!steps) return core::Fail(steps.error());
  if (auto unique = CheckUnique(*steps, path); !unique) return core::Fail(unique.error());
  AddImplicitNeeds(*steps);
  auto ordered = Ordered(std::move(*steps), *document, path);
  if (!ordered) return core::Fail(ordered.error());
  Stack stack;
  stack.file = path;
  stack.name = top.Str("name");
  stack.project = settings.project;
  stack.location = settings.location;
  stack.ttl = top.Str("ttl");
  stack.steps = std::move(*ordered);
  return stack;
}

json GraphJson(const Stack& stack) {
  json steps = json::array();
  for (const auto& step : stack.steps) {
    steps.push_back({{"step", step.id}, {"kind", std::string(StepKindName(step.kind))}, {"needs", step.needs}});
  }
  return steps;
}

}  // namespace tputrain::workflow
