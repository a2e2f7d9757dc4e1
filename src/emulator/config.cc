#include "tputrain/emulator/config.h"

#include <filesystem>

#include "capacity.h"
#include "tputrain/core/duration.h"
#include "tputrain/core/file.h"
#include "tputrain/emulator/emulator.h"

namespace tputrain::emulator {

core::Result<EmulatorConfig> MakeConfig(const StartOptions& options) {
  EmulatorConfig config;
  if (options.port < 0 || options.port > 65535) {
    return core::Fail(core::Error::Usage("--port: expected 0-65535, got " + std::to_string(options.port)));
  }
  auto latency = core::ParseDuration("--op-latency", options.op_latency, core::ZeroDuration::kAllowed);
  if (!latency) return core::Fail(latency.error());
  config.op_latency = *latency;
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
