// The serving skeleton shared by JetStream, Saxml and vLLM: operators, nodes, a ledgered apply,
// and the wait.
#include "serve_flow.h"

#include "tputrain/workflow/queue.h"

#include <algorithm>

#include "tputrain/core/json_fields.h"
#include "tputrain/k8s/manifest.h"
#include "tputrain/k8s/service_proxy.h"
#include "tputrain/k8s/tpu_node_selector.h"
#include "tputrain/workflow/operators.h"

namespace tputrain::workflow::serve_flow {
namespace {

core::Status EnsureOperator(Env& env, const OperatorNeed& need, bool install, bool dry_run) {
  if (env.apply.discovery.Lookup(need.api_version, need.kind)) return {};
  if (!install || !need.load_manifest) {
    return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                        need.kind + " is not installed on the cluster: tputrain operators install " +
                                            need.name + " (or serve up --install-operators)"));
  }
  auto info = FindOperator(need.name);
  if (!info) return core::Fail(info.error());
  auto manifest = need.load_manifest();
  if (!manifest) return core::Fail(manifest.error());
  auto installed = InstallOperator(env.apply, *info, *manifest, dry_run, std::chrono::minutes(5), env.reporter);
  if (!installed) return core::Fail(installed.error());
  return {};
}

}  // namespace

OperatorNeed LwsOperator(std::function<core::Result<std::vector<k8s::Object>>()> load_manifest) {
  return {"lws", "leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", std::move(load_manifest)};
}

core::Result<bool> Apply(Env& env, const Deployment& deployment, bool install, bool dry_run, ServedOutcome& outcome) {
  k8s::Client& client = env.apply.client;
  outcome.ns = deployment.ns.empty() ? client.default_namespace() : deployment.ns;
  outcome.endpoint = k8s::ServiceProxyUrl(client.server(), outcome.ns, deployment.service,
                                          std::to_string(serving::MakeEngine(deployment.engine)->DefaultPort()));
  for (const auto& need : deployment.operators) {
    if (auto present = EnsureOperator(env, need, install, dry_run); !present) return core::Fail(present.error());
  }
  auto no_nodes = serve_pods::EnsureSliceNodes(env.create_pools, client, env.reporter, deployment.nodes);
  if (!no_nodes) return core::Fail(no_nodes.error());
  env.reporter.Progress(deployment.subject, "applying " + deployment.template_name);
  k8s::ApplyOptions options;
  options.ns = outcome.ns;
  options.dry_run = dry_run;
  // In a queue, the workload waits until Kueue admits it (labelled, and with what GKE's queued
  // provisioning needs when the queue admits through it).
  std::vector<k8s::Object> objects = deployment.objects;
  if (auto queued = PrepareForQueue(client, deployment.queue, outcome.ns, objects); !queued) {
    return core::Fail(queued.error());
  }
  const ServeApply serve{deployment.serve_model,
                         deployment.take_over ? OthersObjects::kTakeOver : OthersObjects::kRefuse};
  auto applied = ApplyRecorded(env.apply, objects, options, {}, serve);
  if (!applied) return core::Fail(applied.error());
  outcome.applied = std::move(*applied);
  return *no_nodes;
}

core::Result<std::chrono::milliseconds> WaitServing(Env& env, const Wait& wait,
                                                    const std::function<core::Result<bool>()>& look) {
  core::PollOptions poll;
  poll.initial_delay = std::chrono::seconds(2);
  poll.multiplier = 1.5;
  poll.max_delay = std::chrono::seconds(15);
  poll.timeout = wait.timeout;
  poll.timeout_note = wait.timeout_note;
  if (const std::string note = NoCapacityNote(wait.capacity); !note.empty()) {
    poll.timeout_note = note + (poll.timeout_note.empty() ? "" : "; " + poll.timeout_note);
  }
  if (const std::string hint = PendingCapacityHint(wait.capacity, "--timeout"); !hint.empty()) {
    env.reporter.Info(hint);
  }
  // Only what cannot get better fails the wait; API hiccups are retried as elsewhere.
  poll.is_transient = [&wait](const core::Error& error) {
    return error.kind != core::ErrorKind::kFailedPrecondition && !(wait.hopeless && wait.hopeless(error));
  };
  const auto start = env.clock.Now();
  auto done = core::PollUntil(look, poll, env);
  if (!done) return core::Fail(done.error());
  return std::chrono::duration_cast<std::chrono::milliseconds>(env.clock.Now() - start);
}

k8s::DeleteOptions DownOptions(const std::string& ns, bool dry_run) {
  k8s::DeleteOptions options;
  options.ns = ns;
  options.dry_run = dry_run;
  options.wait = true;
  options.timeout = std::chrono::minutes(5);
  return options;
}

core::Result<Doomed> ServedToDelete(RecordedDeleteEnv& env, const std::string& model, const std::string& ns,
                                    const Render& render) {
  if (env.store == nullptr) return core::Fail(core::Error::Internal("serve down without a run ledger"));
  if (auto known = CheckRecordedRun(*env.store, env.run_id); !known) return core::Fail(known.error());
  auto record = RecordedServe(*env.store, env.run_id, env.access, model, ns);
  if (!record) return core::Fail(record.error());
  Doomed doomed;
  doomed.objects = std::move(record->live);
  std::string whence = "that run " + env.run_id + " applied for it, from its ledger";
  if (!record->recorded && render) {
    // A run of a release that did not record the model: the template again, and of its objects
    // only those the run's ledger holds as its own.
    auto rendered = render();
    if (!rendered) return core::Fail(rendered.error());
    auto held = RecordedAmong(env, *rendered, ns);
    if (!held) return core::Fail(held.error());
    doomed.objects = std::move(*held);
    whence = "of its template that run " + env.run_id + "'s ledger holds";
  }
  const std::string subject = "serve down " + model + ": ";
  if (!doomed.objects.empty()) {
    doomed.said = subject + "the " + std::to_string(doomed.objects.size()) + " objects " + whence;
  } else if (record->recorded) {
    doomed.said = subject + "what run " + env.run_id + " applied for it is deleted already; nothing to delete";
  } else {
    return core::Fail(core::Error::Make(core::ErrorKind::kNotFound,
                                        subject + "run " + env.run_id + " recorded nothing applied for it on this " +
                                            "cluster" + (ns.empty() ? "" : " in namespace " + ns) +
                                            ", so nothing was deleted (tputrain runs show --run " + env.run_id + ")"));
  }
  return doomed;
}

core::Result<std::vector<k8s::DeleteResult>> DeleteDoomed(RecordedDeleteEnv& env, Doomed doomed,
                                                          const k8s::DeleteOptions& options) {
  env.reporter.Info(doomed.said);
  if (doomed.objects.empty()) return std::vector<k8s::DeleteResult>{};
  return DeleteRecorded(env, std::move(doomed.objects), options);
}

core::Result<std::vector<k8s::DeleteResult>> DeleteServed(RecordedDeleteEnv& env, const std::string& model,
                                                          const k8s::DeleteOptions& options, const Render& render) {
  auto doomed = ServedToDelete(env, model, options.ns, render);
  if (!doomed) return core::Fail(doomed.error());
  return DeleteDoomed(env, std::move(*doomed), options);
}

core::Status SelectCapacity(std::vector<k8s::Object>& objects, CapacityMode mode, const std::string& template_name) {
  const auto labels = PoolNodeLabels(mode);
  if (labels.empty()) return {};
  if (k8s::AddTpuNodeSelector(objects, labels) == 0) {
    return core::Fail(core::Error::Usage("--capacity " + std::string(CapacityModeName(mode)) + ": template " +
                                         template_name +
                                         " has no pods that select TPU nodes (cloud.google.com/gke-tpu-accelerator)"));
  }
  return {};
}

core::Result<ServeObjects> RenderWorkload(const render::RenderRequest& request,
                                          const std::vector<std::string>& workload_kinds) {
  auto files = render::RenderTemplate(request);
  if (!files) return core::Fail(files.error());
  ServeObjects rendered;
  for (const auto& file : files->files) {
    if (!file.yaml) continue;
    auto objects = k8s::ParseManifests(file.text, request.template_name + "/" + file.name);
    if (!objects) return core::Fail(objects.error());
    for (auto& object : *objects) {
      const bool workload =
          std::find(workload_kinds.begin(), workload_kinds.end(), object.kind) != workload_kinds.end();
      if (workload && rendered.workload.empty()) {
        rendered.workload_kind = object.kind;
        rendered.workload = object.name;
      }
      if (object.kind == "Service" && rendered.service.empty()) rendered.service = object.name;
      rendered.objects.push_back(std::move(object));
    }
  }
  if (rendered.workload.empty() || rendered.service.empty()) {
    return core::Fail(core::Error::Internal("template " + request.template_name + " lacks its workload or Service"));
  }
  return rendered;
}

std::string Milestone(std::string_view log, Milestones milestones) {
  for (const auto& [line, said] : milestones) {
    if (log.find(line) != std::string_view::npos) return std::string(said);
  }
  return log.empty() ? "" : "loading";
}

Workload WorkloadAt(const std::string& kind, const std::string& ns, const std::string& name) {
  const bool lws = kind == "LeaderWorkerSet";
  const std::string at = "/namespaces/" + http::PathSegment(ns) + (lws ? "/leaderworkersets/" : "/deployments/");
  Workload workload;
  workload.path = (lws ? "/apis/leaderworkerset.x-k8s.io/v1" : "/apis/apps/v1") + at + http::PathSegment(name);
  workload.what = (lws ? "leaderworkerset/" : "deployment/") + name;
  workload.ns = ns;
  workload.pod_selector = (lws ? "leaderworkerset.sigs.k8s.io/name=" : "app=") + name;
  workload.leader_pod = lws ? name + "-0" : "";
  return workload;
}

core::Result<bool> LookOnce(ServeUpEnv& env, const Workload& workload, const std::string& endpoint,
                            const serving::Engine& engine, bool no_nodes, Progress& progress) {
  k8s::Client& client = env.apply.client;
  auto object = client.GetJson(workload.path, workload.what);
  if (!object) return core::Fail(object.error());
  auto pods =
      serve_pods::LivePods(client, workload.ns, workload.pod_selector, workload.tpu_type, no_nodes, workload.container);
  if (!pods) return core::Fail(pods.error());
  const auto items = core::ArrayAt(*pods, "items");
  std::string leader = workload.leader_pod;
  if (leader.empty() && !items.empty()) leader = core::StringAt(core::ObjectAt(items[0], "metadata"), "name");
  const std::string log =
      leader.empty() ? "" : serve_pods::LogTail(client, workload.ns, leader, workload.container, 200);
  if (!workload.fatal_line.empty() && log.find(workload.fatal_line) != std::string::npos) {
    return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                        "pod " + leader + ": " + workload.fatal_line + "; " + workload.fatal_hint));
  }
  std::string state =
      std::to_string(serve_pods::CountReady(*pods)) + "/" + std::to_string(items.size()) + " pods ready";
  if (const std::string milestone = workload.milestone(log); !milestone.empty()) state += ", " + milestone;
  if (!serve_pods::ConditionTrue(*object, "Available")) {
    progress.Say(state);
    return false;
  }
  auto serving = IsServing({env.transport, endpoint, env.clock, std::chrono::seconds(30)}, engine);
  if (serving && !*serving && !workload.loading_note.empty()) state += ", " + workload.loading_note;
  progress.Say(state);
  return serving;
}

core::Status WaitWorkload(ServeUpEnv& env, const Wait& wait, const Workload& workload, const Deployment& deployment,
                          bool no_nodes, ServedOutcome& outcome) {
  Env flow{env, env.apply, env.create_pools};
  Progress progress{env.reporter, deployment.subject, ""};
  const auto engine = serving::MakeEngine(deployment.engine);
  auto waited =
      WaitServing(flow, wait, [&] { return LookOnce(env, workload, outcome.endpoint, *engine, no_nodes, progress); });
  if (!waited) return core::Fail(waited.error());
  env.reporter.Done(deployment.subject, "serving");
  outcome.serving = true;
  outcome.waited = *waited;
  return {};
}

}  // namespace tputrain::workflow::serve_flow
