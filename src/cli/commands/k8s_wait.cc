// tputrain wait KIND/NAME: until a Kubernetes object is ready, by watching it.
#include "commands/commands.h"
#include "commands/k8s_access.h"
#include "output/output.h"
#include "tputrain/core/duration.h"
#include "tputrain/k8s/wait.h"
#include "tputrain/workflow/root.h"

namespace tputrain::cli {
namespace {

struct WaitFlags {
  KubeAccessFlags access;
  std::string target;
  std::string condition = "ready";
  std::string timeout = "5m";
};

core::Result<int> RunWait(const WaitFlags& flags, Context& context) {
  auto timeout = core::ParseDuration("--timeout", flags.timeout);
  if (!timeout) return core::Fail(timeout.error());
  workflow::Root& stack = context.stack();
  auto connection = workflow::ConnectCluster(context.stack(), flags.access);
  if (!connection) return core::Fail(connection.error());
  auto& client = *(*connection)->client;
  auto ref = k8s::ParseObjectRef(flags.target, client);
  if (!ref) return core::Fail(ref.error());
  std::string ns = flags.access.ns.empty() ? client.default_namespace() : flags.access.ns;
  k8s::WatchOptions options;
  options.timeout = *timeout;
  auto waited = k8s::WaitReady(client, *(*connection)->discovery, *ref, ns, options,
                               {stack.clock(), stack.sleeper(), context.cancel});
  if (!waited) return core::Fail(waited.error());
  for (const auto& note : waited->notes) context.reporter().Warn(note);
  nlohmann::json json = {{"kind", ref->kind}, {"namespace", ns}, {"name", ref->name}, {"ready", true}};
  PrintResult(context, json,
              [&](std::ostream& out) { out << ref->kind << " " << ns << "/" << ref->name << " ready\n"; });
  return core::kExitOk;
}

}  // namespace

void SetupWaitCommand(CLI::App& root, Context& context) {
  auto wait_flags = std::make_shared<WaitFlags>();
  auto* wait = root.add_subcommand("wait", "Wait until a Kubernetes object is ready (watching it, no polling)");
  wait->add_option("target", wait_flags->target, "KIND/NAME, e.g. raycluster/ray, lws/jetstream, jobset/sax")
      ->required();
  wait->add_option("--for", wait_flags->condition, "What to wait for (ready)")->check(CLI::IsMember({"ready"}));
  wait->add_option("--timeout", wait_flags->timeout, "How long to wait (default 5m)");
  AddKubeAccessFlags(*wait, wait_flags->access);
  wait->footer("Example:\n  tputrain wait raycluster/ray --for ready --timeout 20m -n ml");
  wait->callback([wait_flags, &context] { context.outcome = RunWait(*wait_flags, context); });
}

}  // namespace tputrain::cli
