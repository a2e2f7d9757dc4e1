#include "tputrain/workflow/ray_jobs.h"

#include <ostream>

#include "tputrain/core/duration.h"
#include "tputrain/core/file.h"
#include "tputrain/core/json.h"
#include "tputrain/core/number.h"
#include "tputrain/ray/entrypoint.h"
#include "tputrain/ray/log_follower.h"
#include "tputrain/ray/wait.h"
#include "tputrain/workflow/reads.h"
#include "tputrain/yaml/bounded.h"
#include "tputrain/yaml/to_json.h"

namespace tputrain::workflow {
namespace {

core::Result<nlohmann::json> ParseJsonFlag(const std::string& flag, const std::string& text) {
  auto json = core::ParseJson(text, "").value_or(nullptr);
  if (!json.is_object()) {
    return core::Fail(core::Error::Usage(flag + ": expected a JSON object, e.g. '{\"key\": \"value\"}'"));
  }
  return json;
}

core::Result<nlohmann::json> ReadRuntimeEnvFile(const std::string& path) {
  auto text = core::ReadFile(path, "--runtime-env", 4 * core::kMiB);
  if (!text) return core::Fail(text.error());
  auto document = yaml::Load(*text, "--runtime-env " + path);  // JSON is YAML too
  if (!document) return core::Fail(document.error());
  try {
    auto json = yaml::ToJson(*document);
    if (!json.is_object()) return core::Fail(core::Error::Usage("--runtime-env " + path + ": expected a mapping"));
    return json;
  } catch (const YAML::Exception& e) {
    return core::Fail(core::Error::Usage("--runtime-env " + path + ": " + e.what()));
  }
}

bool IsRemoteUri(const std::string& path) { return path.find("://") != std::string::npos; }

std::string ReattachCommand(const ray::JobsClient& client, const std::string& id, const std::string& flags) {
  return "tputrain job logs --follow " + id + " " + (flags.empty() ? "--address " + client.options().address : flags);
}

}  // namespace

core::Result<std::unique_ptr<RaySession>> ConnectRayHead(Root& root, const RayHeadFlags& flags) {
  if (!flags.tpu_vm.name.empty()) {
    if (!flags.raycluster.name.empty()) {
      return core::Fail(core::Error::Usage("--tpu-vm and --raycluster are exclusive: pass one"));
    }
    return ConnectTpuVmRay(root, flags.tpu_vm, flags.connection);
  }
  if (!flags.raycluster.name.empty()) return ConnectRayCluster(root, flags.raycluster, flags.connection);
  auto options = ResolveRayClient(root, flags.connection);
  if (!options) return core::Fail(options.error());
  return root.Ray(std::move(*options));
}

std::string ReattachFlags(Root& root, const RayHeadFlags& flags) {
  auto settings = root.Settings();
  if (!flags.tpu_vm.name.empty()) {
    const std::string zone = settings ? settings->Get("location").value_or("") : "";
    return "--tpu-vm " + flags.tpu_vm.name + (zone.empty() ? "" : " --zone " + zone) +
           (flags.tpu_vm.reach.via == "iap" ? "" : " --via " + flags.tpu_vm.reach.via);
  }
  if (flags.raycluster.name.empty()) return "";
  // --location as typed: the hint repeats the command line, not where the setting came from.
  const config::Setting location = settings ? settings->Lookup("location") : config::Setting{};
  return flags.raycluster.CommandLine(location.source == "flag --location" ? location.value.value_or("") : "");
}

core::Result<ray::SubmitRequest> JobSubmitRequest::Build(std::string& local_working_dir) const {
  ray::SubmitRequest request;
  if (command.empty()) {
    return core::Fail(core::Error::Usage("job submit: the entrypoint is missing: add -- COMMAND ARGS..."));
  }
  request.entrypoint = ray::ShellJoin(command);
  if (!submission_id.empty() &&
      submission_id.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
          std::string::npos) {
    return core::Fail(core::Error::Usage("--submission-id: expected letters, digits, '.', '_' or '-'"));
  }
  request.submission_id = submission_id;
  if (!runtime_env_json.empty() && !runtime_env_file.empty()) {
    return core::Fail(core::Error::Usage("--runtime-env and --runtime-env-json: give at most one"));
  }
  if (!runtime_env_json.empty()) {
    auto env = ParseJsonFlag("--runtime-env-json", runtime_env_json);
    if (!env) return core::Fail(env.error());
    request.runtime_env = *env;
  } else if (!runtime_env_file.empty()) {
    auto env = ReadRuntimeEnvFile(runtime_env_file);
    if (!env) return core::Fail(env.error());
    request.runtime_env = *env;
  }
  if (!working_dir.empty()) request.runtime_env["working_dir"] = working_dir;
  if (auto it = request.runtime_env.find("working_dir"); it != request.runtime_env.end()) {
    if (!it->is_string()) return core::Fail(core::Error::Usage("runtime_env.working_dir: expected a path or URI"));
    if (!IsRemoteUri(it->get<std::string>())) local_working_dir = it->get<std::string>();
  }
  if (!metadata_json.empty()) {
    auto metadata = ParseJsonFlag("--metadata-json", metadata_json);
    if (!metadata) return core::Fail(metadata.error());
    for (const auto& [key, value] : metadata->items()) {
      if (!value.is_string())
        return core::Fail(core::Error::Usage("--metadata-json: value of '" + key + "' must be a string"));
      request.metadata[key] = value.get<std::string>();
    }
  }
  if (!resources_json.empty()) {
    auto resources = ParseJsonFlag("--entrypoint-resources", resources_json);
    if (!resources) return core::Fail(resources.error());
    for (const auto& [key, value] : resources->items()) {
      if (!value.is_number() || value.get<double>() < 0) {
        return core::Fail(
            core::Error::Usage("--entrypoint-resources: value of '" + key + "' must be a number of at least 0"));
      }
      request.entrypoint_resources[key] = value.get<double>();
    }
  }
  // Bounds far past any Ray node, so only nonsense is refused; Ray checks what its nodes have.
  constexpr double kMaxUnits = 1e6;
  if (num_cpus) {
    auto cpus = core::ParseAmount("--entrypoint-num-cpus", *num_cpus, kMaxUnits);
    if (!cpus) return core::Fail(cpus.error());
    request.entrypoint_num_cpus = *cpus;
  }
  if (num_gpus) {
    auto gpus = core::ParseAmount("--entrypoint-num-gpus", *num_gpus, kMaxUnits);
    if (!gpus) return core::Fail(gpus.error());
    request.entrypoint_num_gpus = *gpus;
  }
  if (memory) {
    auto bytes = core::ParseWhole("--entrypoint-memory", *memory, 0, INT64_MAX);
    if (!bytes) return core::Fail(bytes.error());
    request.entrypoint_memory = *bytes;
  }
  return request;
}

core::Result<nlohmann::json> SubmitDryRun(const JobSubmitRequest& request) {
  std::string local_dir;
  auto shown = request.Build(local_dir);
  if (!shown) return core::Fail(shown.error());
  nlohmann::json requests = nlohmann::json::array();
  if (!local_dir.empty()) {
    auto package = ray::PackageWorkingDir(local_dir);
    if (!package) return core::Fail(package.error());
    shown->runtime_env["working_dir"] = package->uri();
    requests.push_back(
        {{"method", "PUT"}, {"path", "/api/packages/gcs/" + package->name}, {"bytes", package->archive.size()}});
  }
  auto body = ray::SubmitBody(*shown, ray::ServerVersion{});
  if (!body) return core::Fail(body.error());
  requests.push_back({{"method", "POST"}, {"path", "/api/jobs/"}, {"body", *body}});
  return requests;
}

core::Result<SubmittedJob> SubmitJob(Root& root, const RayHeadFlags& head, const JobSubmitRequest& request) {
  std::string local_dir;
  auto built = request.Build(local_dir);
  if (!built) return core::Fail(built.error());
  auto session = ConnectRayHead(root, head);
  if (!session) return core::Fail(session.error());
  auto& client = *(*session)->client;
  if (!local_dir.empty()) {
    auto uri = client.UploadWorkingDir(local_dir);
    if (!uri) return core::Fail(uri.error());
    built->runtime_env["working_dir"] = *uri;
  }
  auto submitted = client.Submit(*built);
  if (!submitted) return core::Fail(submitted.error());
  return SubmittedJob{std::move(*session), submitted->submission_id, submitted->reattached};
}

core::Result<ray::JobDetails> FollowJob(Root& root, ray::JobsClient& client, http::WebSocketConnector& websocket,
                                        const std::string& id, const ray::LogTextHandler& on_text,
                                        const std::string& reattach) {
  ray::FollowOptions options;
  options.cancel = root.cancel();
  options.on_notice = [&root](std::string_view notice) { root.runtime().reporter.Warn(notice); };
  ray::LogFollower follower(client, websocket, root.clock(), root.sleeper(), options);
  auto job = follower.Follow(id, on_text);
  if (job || job.error().kind != core::ErrorKind::kCancelled) return job;

  if (root.Confirm("\nStop job '" + id + "' on the cluster? [y/N] ")) {
    auto stopped = client.Stop(id);
    if (!stopped) return core::Fail(stopped.error());
    // The first Ctrl-C is spent; a second one exits at once.
    return ray::WaitUntilTerminal(client, id, {root.clock(), root.uninterrupted_sleeper(), nullptr});
  }
  root.err() << "Detached; job '" << id << "' keeps running. Re-attach with:\n  "
             << ReattachCommand(client, id, reattach) << "\n";
  return job;
}

core::Result<ray::JobDetails> FollowJob(Root& root, RaySession& session, const std::string& id, std::ostream& log,
                                        const std::string& reattach) {
  return FollowJob(
      root, *session.client, *session.websocket, id,
      [&log](std::string_view text) { log.write(text.data(), static_cast<std::streamsize>(text.size())).flush(); },
      reattach);
}

core::Result<ray::JobDetails> JobStatus(Root& root, const RayHeadFlags& head, const std::string& id) {
  auto session = ConnectRayHead(root, head);
  if (!session) return core::Fail(session.error());
  return (*session)->client->Get(id);
}

core::Result<std::string> JobLogs(Root& root, const RayHeadFlags& head, const std::string& id) {
  auto session = ConnectRayHead(root, head);
  if (!session) return core::Fail(session.error());
  return (*session)->client->Logs(id);
}

core::Result<bool> DeleteJob(Root& root, const RayHeadFlags& head, const std::string& id) {
  auto session = ConnectRayHead(root, head);
  if (!session) return core::Fail(session.error());
  return (*session)->client->Delete(id);
}

core::Result<std::vector<ray::JobDetails>> ListJobs(Root& root, const RayHeadFlags& head) {
  auto session = ConnectRayHead(root, head);
  if (!session) return core::Fail(session.error());
  return (*session)->client->List();
}

nlohmann::json ToJson(const std::vector<ray::JobDetails>& jobs) {
  nlohmann::json json = nlohmann::json::array();
  for (const auto& job : jobs) json.push_back(job.raw);
  return json;
}

core::Result<ray::JobDetails> FollowJobLogs(Root& root, const RayHeadFlags& head, const std::string& id,
                                            std::ostream& log) {
  auto session = ConnectRayHead(root, head);
  if (!session) return core::Fail(session.error());
  return FollowJob(root, **session, id, log, ReattachFlags(root, head));
}

core::Result<ray::JobDetails> WaitJob(Root& root, const RayHeadFlags& head, const std::string& id,
                                      const std::string& timeout) {
  auto limit = core::ParseOptionalDuration("--timeout", timeout);
  if (!limit) return core::Fail(limit.error());
  auto session = ConnectRayHead(root, head);
  if (!session) return core::Fail(session.error());
  return ray::WaitUntilTerminal(*(*session)->client, id, root.runtime(), *limit);
}

core::Result<bool> StopJob(Root& root, const RayHeadFlags& head, const std::string& id) {
  auto session = ConnectRayHead(root, head);
  if (!session) return core::Fail(session.error());
  return (*session)->client->Stop(id);
}

}  // namespace tputrain::workflow
