// tputrain serve up|down --engine vllm: vLLM's template for the model's slice, applied and
// waited for (--dry-run prints the objects and sends nothing), and taken down from the ledger.
#include "tputrain/workflow/serve_vllm.h"
#include "commands/serve_flags.h"
#include "output/output.h"
#include "tputrain/core/file.h"

namespace tputrain::cli {
namespace {

core::Result<workflow::VllmUpRequest> VllmRequestOf(const UpFlags& flags, Context& context) {
  workflow::VllmUpRequest request;
  request.plan = {flags.model, flags.tpu_type, flags.hf_config, flags.sets, {}, context.stack().TemplateDirs()};
  request.ns = flags.access.ns;
  SetCommonUp(flags, request);
  auto timeout = CheckUpFlags(flags);
  if (!timeout) return core::Fail(timeout.error());
  request.timeout = *timeout;
  if (!flags.hf_token_file.empty()) {
    auto text = core::ReadFile(flags.hf_token_file, "--hf-token-file", 4096);
    if (!text) return core::Fail(text.error());
    // Read, it is a secret of the process: whatever quotes it later (an admission webhook's
    // refusal, a crashing container's log) is printed redacted.
    context.redactor.Hold(*text);
    request.hf_token = std::move(*text);
  }
  return request;
}

nlohmann::json Summary(const workflow::VllmPrepared& prepared) {
  const auto& [plan, rendered] = prepared;
  return {{"engine", "vllm"},
          {"model", plan.model},
          {"tpu_type", plan.tpu_type},
          {"template", plan.template_name},
          {"hosts", plan.hosts},
          {"workload", rendered.workload_kind + "/" + rendered.workload},
          {"service", rendered.service},
          {"why", plan.why.empty() ? nlohmann::json(nullptr) : nlohmann::json(plan.why)}};
}

core::Result<int> PrintDryRun(const workflow::VllmPrepared& prepared, Context& context) {
  const auto& [plan, rendered] = prepared;
  nlohmann::json objects = nlohmann::json::array();
  for (const auto& object : rendered.objects) objects.push_back(workflow::Shown(object));
  nlohmann::json json = Summary(prepared);
  json["objects"] = objects;
  json["dry_run"] = true;
  PrintResult(context, json, [&](std::ostream& out) {
    out << "# " << plan.model << " on " << plan.tpu_type << " (" << plan.template_name << ", " << plan.hosts
        << (plan.hosts == 1 ? " host" : " hosts") << "): nothing applied\n";
    if (!plan.why.empty()) out << "# why: " << plan.why << "\n";
    for (const auto& object : rendered.objects) out << "---\n" << ToYaml(workflow::Shown(object));
  });
  return core::kExitOk;
}

}  // namespace

core::Result<int> RunVllmUp(const UpFlags& flags, Context& context) {
  auto request = VllmRequestOf(flags, context);
  if (!request) return core::Fail(request.error());
  auto prepared = workflow::PrepareVllm(*request);
  if (!prepared) return core::Fail(prepared.error());
  if (context.global.dry_run) return PrintDryRun(*prepared, context);
  core::Result<workflow::VllmUpOutcome> up = core::Fail(core::Error::Internal("serve up did not run"));
  auto ran = WithServeUpEnv(flags, context, false, [&](workflow::ServeUpEnv& env) -> core::Status {
    up = workflow::VllmUp(env, *request, *prepared);
    return up ? core::Status{} : core::Fail(up.error());
  });
  if (!ran) return core::Fail(ran.error());
  nlohmann::json json = Summary(*prepared);
  json.update({{"namespace", up->ns},
               {"endpoint", up->endpoint},
               {"serving", up->serving},
               {"waited_s", Rounded(Seconds(up->waited))},
               {"applied", AppliedJson(up->applied, false)},
               {"dry_run", false}});
  const auto& rendered = prepared->rendered;
  PrintResult(context, json, [&](std::ostream& out) {
    for (const auto& result : up->applied) {
      out << result.object.Describe() << " " << k8s::ApplyActionName(result.action, false) << "\n";
    }
    if (!up->serving) return;
    const std::string service = rendered.service == "vllm-service" ? "" : " --service " + rendered.service;
    if (!prepared->plan.why.empty()) out << "why " << prepared->plan.tpu_type << ": " << prepared->plan.why << "\n";
    out << "Serving " << prepared->plan.model << " on " << prepared->plan.tpu_type << " (" << up->ns << "/"
        << rendered.workload << ").\nAsk it:  tputrain serve generate --engine vllm -n " << up->ns << service
        << " --prompt \"...\"\nEndpoint: " << up->endpoint << "v1/ (OpenAI API, through the API server)\n";
  });
  return core::kExitOk;
}

core::Result<int> RunVllmDown(const DownFlags& flags, Context& context) {
  if (auto valid = workflow::CheckVllmModel(flags.model); !valid) return core::Fail(valid.error());
  auto confirmed = ConfirmDelete(context, flags.yes, "serve down",
                                 "Delete what serve up applied for " + flags.model + " (node pools stay)?");
  if (!confirmed) return core::Fail(confirmed.error());
  if (!*confirmed) return NothingDeleted(context);
  auto run = workflow::RecordedRunOf(context.stack(), {flags.ledger.run_id, flags.ledger.state_dir});
  if (!run) return core::Fail(run.error());
  auto connection = workflow::ConnectCluster(context.stack(), flags.access);
  if (!connection) return core::Fail(connection.error());
  workflow::RecordedDeleteEnv env = workflow::RecordedDeleteEnvOf(context.stack(), flags.access, **connection, *run);
  auto deleted = workflow::VllmDown(env, flags.model, flags.access.ns, context.global.dry_run);
  if (!deleted) return core::Fail(deleted.error());
  return PrintDeleted(context, *deleted);
}

}  // namespace tputrain::cli
