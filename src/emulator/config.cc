#include "tputrain/emulator/config.h"

#include <algorithm>
#include <filesystem>

#include "capacity.h"
#include "tputrain/core/duration.h"
#include "tputrain/core/file.h"
#include "tputrain/emulator/emulator.h"

namespace tputrain::emulator {
namespace {

// `--op-latency 2s` or `--op-latency 2s,clusters.create=20s,nodePools.create=15s`: the default
// first, then one latency per kind of call that starts an operation.
core::Status ParseLatencies(const std::string& text, EmulatorConfig& config) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  bool have_default = false;
  // Any call that answers with an operation: those that start a timed one, and those whose
  // operation is usually done at once (repositories.create, services.batchEnable).
  const auto methods = Emulator::MethodIds();
  for (const auto& part : parts) {
    const size_t equals = part.find('=');
    const std::string value = equals == std::string::npos ? part : part.substr(equals + 1);
    auto latency = core::ParseDuration("--op-latency", value, core::ZeroDuration::kAllowed);
    if (!latency) return core::Fail(latency.error());
    if (equals == std::string::npos) {
      if (have_default) {
        return core::Fail(
            core::Error::Usage("--op-latency: expected one default, then METHOD=DURATION, got '" + text + "'"));
      }
      have_default = true;
      config.op_latency = *latency;
      continue;
    }
    const std::string target = part.substr(0, equals);
    const bool known = target != "*" && std::any_of(methods.begin(), methods.end(),
                                                    [&](const std::string& id) { return MethodMatches(id, target); });
    if (!known) {
      return core::Fail(core::Error::Usage("--op-latency: unknown method '" + target +
                                           "' (e.g. clusters.create, nodePools.create, builds.create, "
                                           "repositories.create, services.batchEnable)"));
    }
    config.method_latencies.push_back({target, *latency});
  }
  return {};
}

}  // namespace

std::optional<std::chrono::milliseconds> EmulatorConfig::NamedLatencyOf(std::string_view method_id) const {
  for (const auto& item : method_latencies) {
    if (MethodMatches(method_id, item.target)) return item.latency;
  }
  return std::nullopt;
}

std::chrono::milliseconds EmulatorConfig::LatencyOf(std::string_view method_id) const {
  return NamedLatencyOf(method_id).value_or(op_latency);
}

core::Result<EmulatorConfig> MakeConfig(const StartOptions& options) {
  EmulatorConfig config;
  if (options.port < 0 || options.port > 65535) {
    return core::Fail(core::Error::Usage("--port: expected 0-65535, got " + std::to_string(options.port)));
  }
  if (auto latencies = ParseLatencies(options.op_latency, config); !latencies) return core::Fail(latencies.error());
  if (!options.stuck_for.empty()) {
    auto stuck_for = core::ParseDuration("--stuck-for", options.stuck_for, core::ZeroDuration::kAllowed);
    if (!stuck_for) return core::Fail(stuck_for.error());
    config.stuck_for = *stuck_for;
  }
  config.state_file = options.state_file;
  for (const auto& service : options.disabled_apis) {
    // "container" is short for container.googleapis.com, as gcloud services enable accepts it.
    std::string name = service.find('.') == std::string::npos ? service + ".googleapis.com" : service;
    if (name == "serviceusage.googleapis.com") {
      return core::Fail(core::Error::Usage("--disabled-apis: serviceusage.googleapis.com is how APIs are enabled"));
    }
    config.disabled_apis.push_back(std::move(name));
  }
  auto faults = ParseFaults(options.faults, Emulator::MethodIds(), Emulator::OperationMethodIds());
  if (!faults) return core::Fail(faults.error());
  config.faults = std::move(*faults);
  config.seed = options.seed;
  if (options.tpu_hosts == "netns") {
    config.tpu_hosts = TpuHostMode::kNetns;
  } else if (options.tpu_hosts != "paper") {
    return core::Fail(core::Error::Usage("--tpu-hosts: expected paper or netns, got '" + options.tpu_hosts + "'"));
  }
  if (!options.host_path.empty()) {
    if (config.tpu_hosts != TpuHostMode::kNetns) {
      return core::Fail(core::Error::Usage("--host-path: only with --tpu-hosts netns"));
    }
    std::error_code error;
    auto absolute = std::filesystem::absolute(options.host_path, error);
    if (error || !std::filesystem::is_directory(absolute)) {
      return core::Fail(core::Error::Usage("--host-path: expected a directory, got '" + options.host_path + "'"));
    }
    config.host_path = absolute.lexically_normal().string();
    while (config.host_path.size() > 1 && config.host_path.back() == '/') config.host_path.pop_back();
  }
  if (!options.capacity.empty()) {
    auto chips = ParseCapacityFlag("--capacity", options.capacity, true);
    if (!chips) return core::Fail(chips.error());
    config.capacity["chips"] = std::move(*chips);
  }
  if (!options.quota.empty()) {
    auto quota = ParseCapacityFlag("--quota", options.quota, false);
    if (!quota) return core::Fail(quota.error());
    config.capacity["quota"] = std::move(*quota);
  }
  if (!options.stockout_retry.empty()) {
    auto retry = core::ParseDuration("--stockout-retry", options.stockout_retry, core::ZeroDuration::kAllowed);
    if (!retry) return core::Fail(retry.error());
    config.stockout_retry = *retry;
  }
  for (const auto& text : options.tpu_prices) {
    auto price = ParseCatalogPrice(text);
    if (!price) return core::Fail(price.error());
    config.catalog_prices.push_back(std::move(*price));
  }
  std::string endpoint = options.cluster_endpoint;
  for (const char* scheme : {"https://", "http://"}) {
    if (endpoint.rfind(scheme, 0) == 0) endpoint = endpoint.substr(std::string(scheme).size());
  }
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  config.cluster_endpoint = endpoint;
  if (!options.cluster_ca_file.empty()) {
    auto pem = core::ReadFile(options.cluster_ca_file, "--cluster-ca-file", 64 * core::kKiB);
    if (!pem) return core::Fail(pem.error());
    config.cluster_ca_pem = std::move(*pem);
    if (config.cluster_ca_pem.find("-----BEGIN CERTIFICATE-----") == std::string::npos) {
      return core::Fail(core::Error::Usage("--cluster-ca-file: expected a readable PEM certificate file, got '" +
                                           options.cluster_ca_file + "'"));
    }
  }
  return config;
}

}  // namespace tputrain::emulator
