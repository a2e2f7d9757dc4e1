// tputrain wait KIND/NAME: until a Kubernetes object is ready, by watching it.
#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "output/output.h"
#include "tputrain/workflow/object_wait.h"

namespace tputrain::cli {
namespace {

// wait's flags: the request's, and --for (ready, the one condition there is).
struct WaitFlags {
  workflow::ObjectWaitRequest request;
  std::string condition = "ready";
};

core::Result<int> RunWait(const WaitFlags& flags, Context& context) {
  auto waited = workflow::WaitForObject(context.stack(), flags.request, context.cancel);
  if (!waited) return core::Fail(waited.error());
  for (const auto& note : waited->notes) context.reporter().Warn(note);
  PrintResult(context, workflow::ToJson(*waited), [&](std::ostream& out) {
    out << waited->kind << " " << waited->ns << "/" << waited->name << " ready\n";
  });
  return core::kExitOk;
}

}  // namespace

void SetupWaitCommand(CLI::App& root, Context& context) {
  auto wait_flags = std::make_shared<WaitFlags>();
  auto* wait = root.add_subcommand("wait", "Wait until a Kubernetes object is ready (watching it, no polling)");
  wait->add_option("target", wait_flags->request.target, "KIND/NAME, e.g. raycluster/ray, lws/jetstream, jobset/sax")
      ->required();
  wait->add_option("--for", wait_flags->condition, "What to wait for (ready)")->check(CLI::IsMember({"ready"}));
  wait->add_option("--timeout", wait_flags->request.timeout, "How long to wait (default 5m)");
  AddKubeAccessFlags(*wait, wait_flags->request.access);
  wait->footer("Example:\n  tputrain wait raycluster/ray --for ready --timeout 20m -n ml");
  wait->callback([wait_flags, &context] { context.outcome = RunWait(*wait_flags, context); });
}

}  // namespace tputrain::cli
