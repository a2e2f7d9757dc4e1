#include "commands/ray_common.h"

#include <iostream>

#include "stack.h"
#include "tputrain/core/clock.h"
#include "tputrain/ray/wait.h"

namespace tputrain::cli {
namespace {

std::string ReattachCommand(const ray::JobsClient& client, const std::string& id, const std::string& flags) {
  return "tputrain job logs --follow " + id + " " + (flags.empty() ? "--address " + client.options().address : flags);
}

}  // namespace

void AddRayConnectionFlags(CLI::App* command, ray::ConnectionFlags& flags) {
  command->add_option("--address", flags.address,
                      "Ray dashboard URL, e.g. http://127.0.0.1:8265 (default: RAY_ADDRESS, then ray_address "
                      "in tputrain.yaml)");
  command->add_option("--header", flags.headers,
                      "Extra HTTP header NAME:VALUE for an authenticated dashboard (repeatable; default: "
                      "RAY_JOB_HEADERS, a JSON object)");
}

core::Result<ray::ClientOptions> ResolveRayClient(const ray::ConnectionFlags& flags, Context& context) {
  std::optional<std::string> configured;
  if (flags.address.empty() && !context.env.Get("RAY_ADDRESS")) {
    auto settings = context.settings();
    if (!settings) return core::Fail(settings.error());
    configured = settings->Get("ray_address");
  }
  return ray::ResolveClientOptions(flags, context.env, configured, &context.redactor);
}

core::Result<ray::JobDetails> FollowJob(Context& context, ray::JobsClient& client, const std::string& id,
                                        const ray::LogTextHandler& on_text, uint64_t start_offset,
                                        http::WebSocketConnector& connector, const std::string& reattach_flags) {
  core::Sleeper& sleeper = context.stack().sleeper();
  ray::FollowOptions options;
  options.start_offset = start_offset;
  options.cancel = context.cancel;
  options.on_notice = [&context](std::string_view notice) { context.reporter().Warn(notice); };
  ray::LogFollower follower(client, connector, context.stack().clock(), sleeper, options);
  auto job = follower.Follow(id, on_text);
  if (job || job.error().kind != core::ErrorKind::kCancelled) return job;

  if (context.stdin_is_tty && context.stderr_is_tty && !context.global.quiet) {
    context.err << "\nStop job '" << id << "' on the cluster? [y/N] " << std::flush;
    std::string answer;
    std::getline(std::cin, answer);
    if (answer == "y" || answer == "Y" || answer == "yes") {
      auto stopped = client.Stop(id);
      if (!stopped) return core::Fail(stopped.error());
      core::RealSleeper uninterrupted;  // the first Ctrl-C is spent; a second one exits at once
      return ray::WaitUntilTerminal(client, id, {context.stack().clock(), uninterrupted, nullptr});
    }
  }
  context.err << "Detached; job '" << id << "' keeps running. Re-attach with:\n  "
              << ReattachCommand(client, id, reattach_flags) << "\n";
  return job;
}

}  // namespace tputrain::cli
