#include "tputrain/workflow/services.h"

#include <algorithm>
#include <set>

#include "tputrain/core/duration.h"
#include "tputrain/core/resource_name.h"
#include "tputrain/gcp/error_from_http.h"
#include "tputrain/gcp/serviceusage/client.h"
#include "tputrain/workflow/provision_requests.h"
#include "tputrain/workflow/reads.h"
#include "tputrain/workflow/root.h"

namespace tputrain::workflow {

core::Result<std::vector<ServiceChange>> EnableServices(ProvisionEnv& env, const std::string& project,
                                                        const std::vector<std::string>& services) {
  gcp::serviceusage::Client client(env.transport, env.endpoints.serviceusage);
  std::vector<std::string> names;
  for (const auto& service : services) {
    auto name = gcp::serviceusage::ServiceName(service);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  std::vector<ServiceChange> changes;
  if (env.dry_run != nullptr && env.look_first) {
    // Only the read goes out; the enable is planned for what it lacks.
    auto enabled = client.ListServices(project, /*enabled_only=*/true);
    std::set<std::string> have;
    if (enabled) {
      for (const auto& service : *enabled) have.insert(service.name);
    }
    std::vector<std::string> missing;
    for (const auto& name : names) {
      changes.push_back({name, have.count(name) != 0});
      if (have.count(name) == 0) missing.push_back(name);
    }
    if (!missing.empty()) env.dry_run->push_back(client.BuildEnable(project, missing));
    return changes;
  }
  if (env.dry_run != nullptr) {
    env.dry_run->push_back(client.BuildEnable(project, names));
    for (const auto& name : names) changes.push_back({name, false});
    return changes;
  }
  auto enabled = client.ListServices(project, /*enabled_only=*/true);
  if (!enabled) return core::Fail(enabled.error());
  std::set<std::string> have;
  for (const auto& service : *enabled) have.insert(service.name);
  std::vector<std::string> missing;
  for (const auto& name : names) {
    changes.push_back({name, have.count(name) != 0});
    if (have.count(name) == 0) missing.push_back(name);
  }
  constexpr size_t kBatch = 20;  // Service Usage's limit for batchEnable
  for (size_t start = 0; start < missing.size(); start += kBatch) {
    std::vector<std::string> batch(
        missing.begin() + static_cast<std::ptrdiff_t>(start),
        missing.begin() + static_cast<std::ptrdiff_t>(std::min(missing.size(), start + kBatch)));
    const std::string task = "services " + batch.front() + (batch.size() > 1 ? " and others" : "");
    env.reporter.Progress(task, "enabling");
    auto op = client.Enable(project, batch);
    if (!op) return core::Fail(op.error());
    auto done = gcp::operations::WaitFrom(*op, gcp::serviceusage::OperationWaiting(client, op->name), env.poll, env);
    if (!done) return core::Fail(done.error());
    env.reporter.Done(task, "enabled");
  }
  return changes;
}

core::Result<bool> EnableApiFor(ProvisionEnv& env, const core::Error& failure, const std::string& project,
                                std::set<std::string>& enabled) {
  if (failure.reason != gcp::kReasonServiceDisabled) return false;
  const auto& metadata = failure.metadata;
  auto service = metadata.find("service");
  if (service == metadata.end() || !enabled.insert(service->second).second) return false;
  // The consumer is "projects/NUMBER": Service Usage takes the number as well as the id.
  auto consumer = metadata.find("consumer");
  std::string target = consumer != metadata.end() ? core::SegmentAfter(consumer->second, "projects") : "";
  if (target.empty()) target = project;
  auto changed = EnableServices(env, target, {service->second});
  if (!changed) return core::Fail(changed.error());
  return true;
}

core::Result<ServicesEnabled> EnableServices(Root& root, const ServicesEnableRequest& request) {
  if (auto valid = CheckServiceNames(request.services); !valid) return core::Fail(valid.error());
  auto timeout = core::ParseOptionalDuration("--timeout", request.timeout);
  if (!timeout) return core::Fail(timeout.error());
  auto settings = root.Settings();
  if (!settings) return core::Fail(settings.error());
  auto project = RequireSetting(*settings, "project");
  if (!project) return core::Fail(project.error());
  http::Transport* google = nullptr;
  if (!request.dry_run) {
    auto connected = root.Google();
    if (!connected) return core::Fail(connected.error());
    google = *connected;
  }
  ServicesEnabled enabled;
  auto env = root.Provision(google);
  if (request.dry_run) env.dry_run = &enabled.planned;
  env.poll.timeout = *timeout;
  auto changes = EnableServices(env, *project, request.services);
  if (!changes) return core::Fail(changes.error());
  if (!request.dry_run) enabled.changes = std::move(*changes);
  return enabled;
}

nlohmann::json ToJson(const std::vector<ServiceChange>& changes) {
  nlohmann::json json = nlohmann::json::array();
  for (const auto& change : changes) {
    json.push_back({{"service", change.service}, {"action", change.was_enabled ? "already enabled" : "enabled"}});
  }
  return json;
}

std::string_view ServiceStateName(const gcp::serviceusage::Service& service) {
  return service.enabled ? "ENABLED" : "DISABLED";
}

nlohmann::json ToJson(const std::vector<gcp::serviceusage::Service>& services) {
  nlohmann::json json = nlohmann::json::array();
  for (const auto& service : services) {
    json.push_back({{"name", service.name}, {"title", service.title}, {"state", ServiceStateName(service)}});
  }
  return json;
}

}  // namespace tputrain::workflow
