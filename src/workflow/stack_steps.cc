#include "stack_steps.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "ksa_annotation.h"
#include "stack_sections.h"
#include "template_values.h"
#include "tputrain/archive/build_context.h"
#include "tputrain/core/file.h"
#include "tputrain/core/timestamp.h"
#include "tputrain/ray/entrypoint.h"
#include "tputrain/render/render.h"
#include "tputrain/workflow/apply_recorded.h"
#include "tputrain/workflow/image_build.h"
#include "tputrain/workflow/queue.h"
#include "tputrain/workflow/services.h"
#include "tputrain/workflow/zone_failover.h"

namespace tputrain::workflow::internal {
namespace {

using nlohmann::json;

bool AllAdopted(const std::vector<Outcome>& outcomes) {
  for (const auto& outcome : outcomes) {
    if (outcome.action != OutcomeAction::kAdopted && outcome.action != OutcomeAction::kResumed &&
        outcome.action != OutcomeAction::kAlreadyBound) {
      return false;
    }
  }
  return true;
}

StepDone Made(std::vector<Outcome> outcomes) {
  StepDone done;
  done.adopted = AllAdopted(outcomes);
  done.detail = done.adopted ? "exists, adopted" : "created";
  done.outcomes = std::move(outcomes);
  return done;
}

core::Result<StepDone> Made(core::Result<std::vector<Outcome>> outcomes) {
  if (!outcomes) return core::Fail(outcomes.error());
  return Made(std::move(*outcomes));
}

core::Result<StepDone> Made(core::Result<Outcome> outcome) {
  if (!outcome) return core::Fail(outcome.error());
  return Made(std::vector<Outcome>{std::move(*outcome)});
}

json Memo(const ProvisionEnv& env, const std::string& id) {
  if (env.ledger == nullptr) return json::object();
  auto ledger = env.ledger->Load(env.run_id);
  if (!ledger) return json::object();
  return ledger->steps.value(id, json::object());
}

bool Differs(const StepContext& context) {
  return context.plan != nullptr && context.plan->action == PlanAction::kDiffers && context.stack_env.recreate &&
         context.env.dry_run == nullptr;
}

// A directory of its own under TMPDIR, removed when it goes.
class TempDir {
 public:
  static core::Result<TempDir> Make() {
    const char* tmp = getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/tputrain-up-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) return core::Fail(core::Error::Internal("cannot create " + pattern));
    return TempDir(pattern);
  }
  TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  TempDir(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

core::Result<render::Rendered> RenderImage(const StackImage& image) {
  return render::RenderTemplate(render::RenderRequest{image.render_template,
                                                      image.template_dirs,
                                                      image.render_sets,
                                                      {},
                                                      std::nullopt,
                                                      image.configuration,
                                                      SliceTemplateValues});
}

core::Result<StepDone> BuildStackImage(StepContext& context, const StackStep& step) {
  const StackImage& image = *step.image;
  auto fingerprint = ImageFingerprint(image);
  if (!fingerprint) return core::Fail(fingerprint.error());
  ProvisionEnv& env = context.env;
  if (DoneBefore(context, step.id, *fingerprint)) {
    auto ledger = env.ledger->Load(env.run_id);
    const std::string built = ledger ? LastBuiltImage(*ledger) : "";
    if (!built.empty()) return StepDone{{}, true, "built before: " + built};
  }
  ImageBuildRequest request = image.request;
  std::optional<TempDir> dir;
  if (!image.render_template.empty()) {
    auto rendered = RenderImage(image);
    if (!rendered) return core::Fail(rendered.error());
    auto made = TempDir::Make();
    if (!made) return core::Fail(made.error());
    dir.emplace(std::move(*made));
    for (const auto& file : rendered->files) {
      std::ofstream out(std::filesystem::path(dir->path()) / file.name, std::ios::binary);
      out << file.text;
      if (!out) return core::Fail(core::Error::Internal("cannot write " + dir->path() + "/" + file.name));
    }
    request.context_dir = dir->path();
  }
  auto packed = PackContext(request);
  if (!packed) return core::Fail(packed.error());
  // The build's log goes to the step's line, its last line at a time.
  auto on_log = [&env](std::string_view text) { ShowLastLine(env.reporter, "build", text); };
  auto built = BuildImage(env, request, *packed, on_log);
  if (!built) return core::Fail(built.error());
  StepDone done;
  done.outcomes = built->outcomes;
  const auto colon = built->image.rfind(':');
  done.detail = built->digest.empty() || colon == std::string::npos
                    ? "built " + built->image
                    : "built " + built->image.substr(0, colon) + "@" + built->digest;
  Remember(env, step.id, *fingerprint, done.detail);
  return done;
}

core::Result<StepDone> ApplyObjects(StepContext& context, const StackStep& step) {
  ProvisionEnv& env = context.env;
  const StackApply& apply = *step.apply;
  if (DoneBefore(context, step.id, step.fingerprint)) return StepDone{{}, true, "applied before"};
  auto connection = Connect(context, apply.cluster);
  if (!connection) return core::Fail(connection.error());
  RecordedApplyEnv apply_env{env, *(*connection)->client, *(*connection)->discovery,
                             state::AccessRecord::Gke(apply.cluster.Name()), LedgerRecorder{env.ledger, env.run_id}};
  std::vector<k8s::Object> objects = apply.objects;
  if (auto queued = PrepareForQueue(*(*connection)->client, apply.queue, apply.ns, objects); !queued) {
    return core::Fail(queued.error());
  }
  k8s::ApplyOptions options;
  options.dry_run = env.dry_run != nullptr;
  options.ns = apply.ns;
  options.force_conflicts = apply.force_conflicts;
  auto applied = ApplyRecorded(apply_env, objects, options);
  if (!applied) return core::Fail(applied.error());
  StepDone done;
  for (const auto& result : *applied) {
    done.detail += (done.detail.empty() ? "" : ", ") + result.object.Describe() + " " +
                   std::string(k8s::ApplyActionName(result.action, options.dry_run));
  }
  Remember(env, step.id, step.fingerprint, "applied " + std::to_string(applied->size()) + " objects");
  return done;
}

core::Result<StepDone> RunWorkload(StepContext& context, const StackStep& step) {
  ProvisionEnv& env = context.env;
  const StackWorkload& workload = *step.workload;
  if (DoneBefore(context, step.id, step.fingerprint)) {
    return StepDone{{}, true, "done before: " + MemoDetail(context, step.id)};
  }
  core::Result<std::shared_ptr<SubmitEnv>> made = core::Fail(core::Error::Internal("no way to submit was given"));
  if (workload.tpu_vm && context.stack_env.reach.submit_env_on_tpu_vm) {
    auto node = TpuVmOfWorkload(context, workload);
    if (!node) return core::Fail(node.error());
    made = context.stack_env.reach.submit_env_on_tpu_vm(*node);
  } else if (!workload.tpu_vm && context.stack_env.reach.submit_env) {
    made = context.stack_env.reach.submit_env(workload.cluster, workload.ns);
  }
  if (!made) return core::Fail(made.error());
  // The flow's own environment, telling the step's line.
  SubmitEnv submit{env,
                   (*made)->connect_direct,
                   (*made)->connect_cluster,
                   (*made)->open_ledger,
                   (*made)->last_built_image,
                   (*made)->callbacks};
  SubmitRequest request = workload.submit;
  request.dry_run = env.dry_run != nullptr;
  std::optional<TempDir> values;
  if (!workload.inline_values.empty()) {
    auto dir = TempDir::Make();
    if (!dir) return core::Fail(dir.error());
    values.emplace(std::move(*dir));
    for (size_t i = 0; i < workload.inline_values.size(); ++i) {
      const std::string path = values->path() + "/values-" + std::to_string(i) + ".yaml";
      std::ofstream(path) << workload.inline_values[i].dump() << "\n";
      request.raycluster->values_files.push_back(path);
    }
  }
  auto submitted = Submit(submit, request);
  if (!submitted) return core::Fail(submitted.error());
  StepDone done;
  if (submitted->plan) {
    done.detail = "would submit " + request.spec.model;
    return done;
  }
  const auto& outcome = submitted->outcome;
  const std::string status = outcome.job ? outcome.job->status_text : "submitted";
  done.detail = "job " + outcome.submission_id + " " + status;
  if (outcome.job && outcome.job->status != ray::JobStatus::kSucceeded) {
    std::string message = outcome.job->message.value_or("");
    message = message.substr(0, message.find('\n'));
    return core::Fail(
        core::Error::Make(core::ErrorKind::kAborted, done.detail + (message.empty() ? "" : ": " + message)));
  }
  if (outcome.summary.steps_logged > 0) done.detail += ", " + std::to_string(outcome.summary.steps_logged) + " steps";
  Remember(env, step.id, step.fingerprint, done.detail);
  return done;
}

core::Result<StepDone> Bind(StepContext& context, const StackStep& step) {
  ProvisionEnv& env = context.env;
  const auto& identity = *step.identity;
  auto binding = BindingOf(env, context.stack.project, identity);
  if (!binding) return core::Fail(binding.error());
  auto bound = AddPolicyBinding(env, *binding);
  if (!bound) return core::Fail(bound.error());
  std::vector<Outcome> outcomes{*bound};
  if (identity.annotate_ksa) {
    const StackStep* cluster = context.stack.Find("cluster");
    if (cluster == nullptr) return core::Fail(core::Error::Internal("annotate-ksa without the stack's cluster"));
    if (env.dry_run != nullptr) return Made(std::move(outcomes));  // the cluster may not be there yet
    auto connection = Connect(context, cluster->cluster->ref);
    if (!connection) return core::Fail(connection.error());
    RecordedApplyEnv apply{env,
                           *(*connection)->client,
                           *(*connection)->discovery,
                           state::AccessRecord::Gke(cluster->cluster->ref.Name()),
                           {env.ledger, env.run_id}};
    auto annotated = AnnotateServiceAccount(apply, identity.ns, identity.ksa, identity.gsa, false);
    if (!annotated) return core::Fail(annotated.error());
    Outcome account{
        state::ResourceKind::kK8sObject, "ServiceAccount " + identity.ns + "/" + identity.ksa,
        annotated->object.Describe(),
        annotated->action == k8s::ApplyAction::kCreated ? OutcomeAction::kCreated : OutcomeAction::kAdopted};
    outcomes.push_back(account);
  }
  return Made(std::move(outcomes));
}

core::Result<StepDone> EnableApis(StepContext& context, const StackStep& step) {
  auto changes = EnableServices(context.env, context.stack.project, step.services);
  if (!changes) return core::Fail(changes.error());
  StepDone done;
  done.adopted = true;
  std::string enabled;
  for (const auto& change : *changes) {
    if (change.was_enabled) continue;
    done.adopted = false;
    enabled += (enabled.empty() ? "" : ", ") + change.service;
  }
  done.detail = done.adopted ? "already enabled" : "enabled " + enabled;
  return done;
}

core::Status Replace(StepContext& context, const StackStep& step) {
  ProvisionEnv& env = context.env;
  switch (step.kind) {
    case StepKind::kCluster: {
      env.reporter.Progress("cluster", "differs; deleting it to create it as the file says (--recreate)");
      auto deleted = DeleteCluster(env, step.cluster->ref);
      return deleted ? core::Status{} : core::Fail(deleted.error());
    }
    case StepKind::kNodePool:
      for (const auto& pool : step.nodepool->pools) {
        auto deleted = DeleteNodePool(env, {step.nodepool->cluster, pool.name});
        if (!deleted) return core::Fail(deleted.error());
      }
      return {};
    case StepKind::kTpuVm: {
      const TpuVmCreatePlan& vm = *step.tpu_vm;
      // A queued resource's slices, or VMs `zones` placed, are not deleted here.
      if (vm.num_slices > 1 || vm.capacity.queued || vm.failover.auto_zones || vm.failover.zones.size() > 1) break;
      for (const auto& name : vm.names) {
        env.reporter.Progress("tpu-vm " + name, "differs; deleting it to create it as the file says (--recreate)");
        auto deleted = DeleteTpuVm(env, {vm.project, vm.zone, name});
        if (!deleted) return core::Fail(deleted.error());
      }
      return {};
    }
    case StepKind::kRegistry: {
      auto deleted = DeleteRepository(env, *step.registry);
      return deleted ? core::Status{} : core::Fail(deleted.error());
    }
    default:
      break;
  }
  const std::string why =
      step.kind == StepKind::kTpuVm ? " made through a queued resource or placed by zones" : " (it may hold data)";
  return core::Fail(
      core::Error::Make(core::ErrorKind::kFailedPrecondition, step.id + " differs, and --recreate does not delete a " +
                                                                  std::string(StepKindName(step.kind)) + why +
                                                                  ": change it by hand or change the file"));
}

}  // namespace

void Remember(ProvisionEnv& env, const std::string& id, const std::string& fingerprint, const std::string& detail) {
  if (env.ledger == nullptr || env.dry_run != nullptr) return;
  auto written = env.ledger->Update(env.run_id, [&](state::Ledger& ledger) {
    ledger.steps[id] = {{"fingerprint", fingerprint},
                        {"state", "done"},
                        {"at", core::FormatTimestamp(env.clock.WallNow())},
                        {"detail", detail}};
  });
  if (!written) env.reporter.Warn("run ledger: " + written.error().message);
}

bool DoneBefore(const StepContext& context, const std::string& id, const std::string& fingerprint) {
  if (context.needs_made_anew) return false;
  const json memo = Memo(context.env, id);
  return memo.value("state", "") == "done" && memo.value("fingerprint", "") == fingerprint;
}

core::Result<std::unique_ptr<k8s::Connection>> Connect(const StepContext& context,
                                                       const gcp::container::ClusterRef& cluster) {
  if (!context.stack_env.reach.connect_cluster) {
    return core::Fail(core::Error::Internal("no way to reach the cluster was given"));
  }
  return context.stack_env.reach.connect_cluster(state::AccessRecord::Gke(cluster.Name()));
}

void ShowLastLine(core::Reporter& reporter, std::string_view task, std::string_view text) {
  std::string_view last = text;
  while (!last.empty() && last.back() == '\n') last.remove_suffix(1);
  if (auto cut = last.rfind('\n'); cut != std::string_view::npos) last = last.substr(cut + 1);
  if (!last.empty()) reporter.Progress(task, last);
}

json MemoOf(const StepContext& context, const std::string& id) { return Memo(context.env, id); }

std::string MemoDetail(const StepContext& context, const std::string& id) {
  return Memo(context.env, id).value("detail", "");
}

ProvisionEnv WithReporter(const ProvisionEnv& env, core::Reporter& reporter) {
  ProvisionEnv copy{core::Runtime{core::PollEnv{env.clock, env.sleeper, env.cancel}, reporter}, env.transport,
                    env.endpoints};
  copy.ledger = env.ledger;
  copy.run_id = env.run_id;
  copy.poll = env.poll;
  copy.busy_retry = env.busy_retry;
  copy.async = env.async;
  copy.recreate_unusable = env.recreate_unusable;
  copy.dry_run = env.dry_run;
  copy.prices = env.prices;
  copy.expires_at = env.expires_at;
  copy.look_first = env.look_first;
  return copy;
}

core::Result<std::string> ImageFingerprint(const StackImage& image) {
  json parts = {{"tag", image.request.image.Uri()}, {"timeout", image.request.timeout}};
  json files = json::array();
  if (!image.render_template.empty()) {
    auto rendered = RenderImage(image);
    if (!rendered) return core::Fail(rendered.error());
    for (const auto& file : rendered->files) files.push_back({file.name, Fingerprint(file.text)});
  } else {
    auto context = archive::CollectBuildContext(
        image.request.context_dir, {image.request.max_context_bytes, image.request.max_context_flag, "dir"});
    if (!context) return core::Fail(context.error());
    for (const auto& file : context->files) {
      std::error_code error;
      if (!std::filesystem::is_regular_file(file.source, error)) {
        files.push_back({file.archive_path, nullptr});
        continue;
      }
      auto bytes = core::ReadFile(file.source.string(), "dir", image.request.max_context_bytes + 1);
      if (!bytes) return core::Fail(bytes.error());
      files.push_back({file.archive_path, Fingerprint(*bytes)});
    }
  }
  parts["files"] = files;
  return Fingerprint(parts);
}

StepPlan PlanRecordedStep(const StepContext& context, const StackStep& step) {
  StepPlan plan{step.id, PlanAction::kRun, step.needs, {}, {}, ""};
  std::string fingerprint = step.fingerprint;
  if (step.kind == StepKind::kImage) {
    auto computed = ImageFingerprint(*step.image);
    if (!computed) {
      plan.action = PlanAction::kUnknown;
      plan.note = computed.error().message;
      return plan;
    }
    fingerprint = *computed;
    plan.action = PlanAction::kCreate;
    plan.note = "build " + step.image->request.image.Uri();
  }
  if (DoneBefore(context, step.id, fingerprint)) {
    plan.action = PlanAction::kAdopt;
    plan.note = "done before, with the same values: " + Memo(context.env, step.id).value("detail", "");
    return plan;
  }
  if (step.kind == StepKind::kApply) {
    plan.note = "apply";
    for (const auto& object : step.apply->objects) plan.note += " " + object.Describe() + ",";
    plan.note.pop_back();
  }
  if (step.kind == StepKind::kWorkload && step.workload->kind == WorkloadKind::kRayJob) {
    plan.note = "submit `" + ray::ShellJoin(step.workload->job->command) + "` to the Ray of TPU VM " +
                step.workload->tpu_vm->node + ", followed to its end";
  } else if (step.kind == StepKind::kWorkload && step.workload->kind == WorkloadKind::kSubmit) {
    const auto& spec = step.workload->submit.spec;
    const std::string where = step.workload->tpu_vm ? "the Ray of TPU VM " + step.workload->tpu_vm->node
                                                    : "cluster " + step.workload->cluster.cluster;
    plan.note = "submit " + spec.model + (spec.tpu_type.empty() ? "" : " on " + spec.tpu_type) + " to " + where +
                ", followed to its end";
  } else if (step.kind == StepKind::kWorkload) {
    const StackWorkload& workload = *step.workload;
    std::string model = "";
    std::string engine = "";
    if (workload.kind == WorkloadKind::kServeVllm) {
      model = workload.vllm->plan.model;
      engine = "vLLM";
    } else if (workload.kind == WorkloadKind::kServeSaxml) {
      model = workload.saxml->model.id;
      engine = "Saxml";
    } else {
      model = workload.jetstream->model;
      engine = "JetStream";
    }
    plan.note = "serve " + model + " with " + engine + " on cluster " + workload.cluster.cluster + ", until it answers";
  }
  return plan;
}

core::Result<StepDone> DoStep(StepContext& context, const StackStep& step) {
  ProvisionEnv& env = context.env;
  if (Differs(context)) {
    if (auto replaced = Replace(context, step); !replaced) return core::Fail(replaced.error());
  }
  env.recreate_unusable = step.recreate_unusable;
  switch (step.kind) {
    case StepKind::kServices:
      return EnableApis(context, step);
    case StepKind::kCluster:
      return Made(CreateCluster(env, *step.cluster));
    case StepKind::kNodePool:
      return Made(CreateNodePoolsInAnyZone(env, step.nodepool->cluster, step.nodepool->pools, step.nodepool->failover));
    case StepKind::kTpuVm:
      return Made(CreatePlannedTpuVms(env, *step.tpu_vm));
    case StepKind::kBucket:
      return Made(CreateBucket(env, context.stack.project, *step.bucket));
    case StepKind::kServiceAccount:
      return Made(CreateServiceAccountWithRoles(env, *step.service_account));
    case StepKind::kIdentity:
      return Bind(context, step);
    case StepKind::kRegistry:
      return Made(CreateRepository(env, *step.registry, step.registry_spec));
    case StepKind::kImage:
      return BuildStackImage(context, step);
    case StepKind::kApply:
      return ApplyObjects(context, step);
    case StepKind::kWorkload:
      if (step.workload->kind == WorkloadKind::kRayJob) return RunRayJob(context, step);
      return step.workload->kind == WorkloadKind::kSubmit ? RunWorkload(context, step) : RunServe(context, step);
  }
  return core::Fail(core::Error::Internal("unknown step kind"));
}

}  // namespace tputrain::workflow::internal
