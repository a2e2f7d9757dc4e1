#include "tputrain/workflow/zone_failover.h"

#include <algorithm>
#include <set>

#include "capacity_problem.h"
#include "reservation_check.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/core/duration.h"
#include "tputrain/gcp/names.h"
#include "tputrain/gcp/tpu/client.h"
#include "tputrain/workflow/node_pools.h"

namespace tputrain::workflow {
namespace {

using internal::CapacityProblem;

nlohmann::json Attempt(const std::string& zone, std::string_view result, const std::string& message = "") {
  nlohmann::json attempt = {{"zone", zone}, {"result", result}};
  if (!message.empty()) attempt["message"] = message;
  return attempt;
}

// The attempts on each ledger entry the outcomes name (a pool retried in another zone has one
// entry: the list says where it was tried).
void RecordAttempts(ProvisionEnv& env, const std::vector<Outcome>& outcomes, const nlohmann::json& attempts) {
  if (env.ledger == nullptr || env.run_id.empty()) return;
  auto recorded = env.ledger->Update(env.run_id, [&](state::Ledger& ledger) {
    for (const auto& outcome : outcomes) {
      if (auto* entry = ledger.Find(outcome.kind, outcome.resource)) entry->details["attempts"] = attempts;
    }
  });
  if (!recorded) env.reporter.Warn("could not record the zone attempts in the ledger: " + recorded.error().message);
}

std::string Summary(const nlohmann::json& attempts) {
  std::string text;
  for (const auto& attempt : attempts) {
    if (!text.empty()) text += ", ";
    text += attempt.value("zone", "") + ": " + attempt.value("result", "");
  }
  return text;
}

// The catalog's zones for `accelerator_type` (within `region` when given) that the TPU API lists
// the type in. A dry run reads nothing: the catalog's list as it is.
core::Result<std::vector<std::string>> AutoZones(ProvisionEnv& env, const std::string& project,
                                                 const std::string& accelerator_type, const std::string& region) {
  auto slice = catalog::FindSliceType(accelerator_type);
  if (!slice) return core::Fail(slice.error());
  std::vector<std::string> zones;
  for (const auto& zone : catalog::ZonesOf(*slice->generation)) {
    if (!region.empty() && internal::RegionOf(zone) != region) continue;
    // The TPU API knows only what it offers: GKE-only generations (tpu7x) go by the catalog.
    if (env.dry_run == nullptr && slice->generation->cloud_tpu_api) {
      gcp::tpu::Client client(env.transport, env.endpoints.tpu);
      auto offered = client.ListAcceleratorTypes(project, zone);
      if (!offered) return core::Fail(offered.error());
      if (std::find(offered->begin(), offered->end(), accelerator_type) == offered->end()) continue;
    }
    zones.push_back(zone);
  }
  const std::string where = region.empty() ? "" : " in " + region;
  if (zones.empty()) {
    return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                        "--zones auto: no zone" + where + " offers " + accelerator_type));
  }
  std::string listed;
  for (const auto& zone : zones) listed += (listed.empty() ? "" : ", ") + zone;
  env.reporter.Progress("zones", "offering " + accelerator_type + where + ": " + listed);
  return zones;
}

// `failover` with its zones filled in when they are `auto`.
core::Result<ZoneFailover> Resolved(ProvisionEnv& env, ZoneFailover failover, const std::string& project,
                                    const std::string& accelerator_type, const std::string& region) {
  if (!failover.auto_zones) return failover;
  auto zones = AutoZones(env, project, accelerator_type, region);
  if (!zones) return core::Fail(zones.error());
  failover.zones = std::move(*zones);
  failover.auto_zones = false;
  return failover;
}

}  // namespace

bool IsZone(const std::string& location) { return internal::RegionOf(location) != location; }

core::Status CheckAsyncFailover(const ZoneFailover& failover, bool async) {
  if (!async || (failover.zones.size() <= 1 && !failover.auto_zones && !failover.retry_until_up)) return {};
  return core::Fail(
      core::Error::Usage("--async: a stockout shows only when a zone's create ends, so trying zones in turn (--zones, "
                         "--retry-until-up) needs the wait; drop --async or give one zone"));
}

core::Result<std::vector<std::string>> ZonesOf(const std::vector<std::string>& given) {
  std::vector<std::string> zones;
  for (const auto& text : given) {
    size_t start = 0;
    while (true) {
      const size_t comma = text.find(',', start);
      std::string zone = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (zone.empty()) {
        return core::Fail(
            core::Error::Usage("--zones: expected zones separated by commas (us-east5-a,us-east5-b), "
                               "got an empty one in '" +
                               text + "'"));
      }
      zones.push_back(std::move(zone));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (zones.size() > 1 && std::find(zones.begin(), zones.end(), "auto") != zones.end()) {
    return core::Fail(core::Error::Usage("--zones: auto stands alone (the zones that offer the type)"));
  }
  return zones;
}

core::Result<ZoneFailover> ResolveFailover(const FailoverFlags& flags, const std::string& location,
                                           const std::string& region_of) {
  ZoneFailover failover;
  if (!flags.retry_gap.empty()) {
    auto gap = core::ParseDuration("--retry-gap", flags.retry_gap);
    if (!gap) return core::Fail(gap.error());
    failover.retry_gap = *gap;
  }
  failover.retry_until_up = flags.retry_until_up;
  if (flags.zones.empty()) {
    if (!flags.retry_gap.empty() && !flags.retry_until_up) {
      return core::Fail(core::Error::Usage("--retry-gap: only with --retry-until-up"));
    }
    if (!location.empty()) failover.zones.push_back(location);
    return failover;
  }
  auto zones = ZonesOf(flags.zones);
  if (!zones) return core::Fail(zones.error());
  // A --zone that --zones leaves out would be dropped without a word.
  if (!flags.replaced_zone.empty() && std::find(zones->begin(), zones->end(), flags.replaced_zone) == zones->end()) {
    return core::Fail(core::Error::Usage("--zones: replaces --zone " + flags.replaced_zone +
                                         ", which it does not list; give the zones to try in --zones alone"));
  }
  if (zones->size() == 1 && zones->front() == "auto") {
    failover.auto_zones = true;
    return failover;
  }
  std::set<std::string> seen;
  for (const auto& zone : *zones) {
    if (auto valid = gcp::CheckLocation("--zones", zone); !valid) return core::Fail(valid.error());
    if (internal::RegionOf(zone) == zone) {
      return core::Fail(core::Error::Usage("--zones: expected zones (us-east5-a), got the region '" + zone + "'"));
    }
    if (!seen.insert(zone).second) return core::Fail(core::Error::Usage("--zones: '" + zone + "' is given twice"));
    if (!region_of.empty() && internal::RegionOf(zone) != internal::RegionOf(region_of)) {
      return core::Fail(core::Error::Usage("--zones: " + zone + " is not in the cluster's region " +
                                           internal::RegionOf(region_of) + " (a node pool's zones are its cluster's)"));
    }
    failover.zones.push_back(zone);
  }
  return failover;
}

core::Result<std::vector<Outcome>> CreateInAnyZone(
    ProvisionEnv& env, const ZoneFailover& failover, const std::string& task,
    const std::function<core::Result<std::vector<Outcome>>(const std::string& zone)>& attempt,
    const std::function<core::Result<std::vector<Outcome>>(const std::string& zone)>& clean_up) {
  if (failover.zones.size() == 1 && !failover.retry_until_up) return attempt(failover.zones.front());
  // --dry-run shows the first zone's requests: nothing is sent, so nothing can fail over.
  if (env.dry_run != nullptr) return attempt(failover.zones.front());
  nlohmann::json attempts = nlohmann::json::array();
  std::set<std::string> quota_regions;
  core::Error last = core::Error::Make(core::ErrorKind::kResourceExhausted, "no zone to try");
  const auto start = env.clock.Now();
  for (int round = 1;; ++round) {
    bool tried = false;
    for (const auto& zone : failover.zones) {
      const std::string region = internal::RegionOf(zone);
      if (quota_regions.count(region) != 0) {
        if (round == 1) attempts.push_back(Attempt(zone, "skipped", "the quota of " + region + " is exhausted"));
        continue;
      }
      tried = true;
      env.reporter.Progress(task, "trying " + zone + (round > 1 ? " (round " + std::to_string(round) + ")" : ""));
      auto made = attempt(zone);
      if (made) {
        attempts.push_back(Attempt(zone, "created"));
        for (auto& outcome : *made) {
          outcome.details["zone"] = zone;
          outcome.details["attempts"] = attempts;
        }
        RecordAttempts(env, *made, attempts);
        return made;
      }
      last = made.error();
      const CapacityProblem problem = internal::ClassifyCapacity(last);
      if (problem != CapacityProblem::kStockout && problem != CapacityProblem::kQuota) {
        if (!attempts.empty()) last.message += " (after " + Summary(attempts) + ")";
        return core::Fail(last);
      }
      attempts.push_back(Attempt(zone, internal::CapacityProblemName(problem), last.message));
      if (problem == CapacityProblem::kQuota) {
        quota_regions.insert(region);
        env.reporter.Warn(zone + ": quota exceeded; quota is per region, so the other zones of " + region +
                          " are skipped");
        continue;
      }
      env.reporter.Warn(zone + ": no capacity (stockout); deleting what the attempt left, then the next zone");
      auto cleaned = clean_up(zone);
      if (!cleaned) {
        auto error = cleaned.error();
        error.message = "after a stockout in " + zone + ", deleting what the attempt left failed: " + error.message +
                        "; run 'tputrain cleanup --run " + env.run_id + "' to delete it";
        return core::Fail(error);
      }
      RecordAttempts(env, *cleaned, attempts);
    }
    if (!failover.retry_until_up || !tried) break;
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(env.clock.Now() - start);
    if (env.poll.timeout && elapsed + failover.retry_gap > *env.poll.timeout) break;
    env.reporter.Progress(task, "no zone had capacity; trying again in " +
                                    std::to_string(failover.retry_gap.count() / 1000) + "s (--retry-until-up)");
    if (!env.sleeper.Sleep(failover.retry_gap)) return core::Fail(core::Error::Cancelled());
  }
  core::Error error =
      core::Error::Make(core::ErrorKind::kResourceExhausted,
                        task + ": no capacity in any zone (" + Summary(attempts) + "); last: " + last.message);
  error.reason = last.reason;
  error.http_status = last.http_status;
  return core::Fail(error);
}

core::Result<std::vector<Outcome>> CreateNodePoolsInAnyZone(ProvisionEnv& env,
                                                            const gcp::container::ClusterRef& cluster,
                                                            const std::vector<gcp::container::NodePoolSpec>& pools,
                                                            const ZoneFailover& failover) {
  if (auto held = internal::CheckPoolReservations(env, cluster, pools); !held) return core::Fail(held.error());
  if (failover.zones.empty() && !failover.auto_zones) return CreateNodePools(env, cluster, pools);
  std::string type;
  const auto& first = pools.front();
  if (auto slice = SliceOfPool(first)) {
    type = slice->accelerator_type;
  } else if (failover.auto_zones) {
    return core::Fail(core::Error::Usage("--zones auto: for TPU slice pools (give --tpu-type)"));
  }
  auto resolved = Resolved(env, failover, cluster.project, type, internal::RegionOf(cluster.location));
  if (!resolved) return core::Fail(resolved.error());
  auto in_zone = [&](const std::string& zone) {
    auto placed = pools;
    for (auto& pool : placed) pool.node_locations = {zone};
    return placed;
  };
  std::string task = "nodepool";
  for (const auto& pool : pools) task += " " + pool.name;
  return CreateInAnyZone(
      env, *resolved, task, [&](const std::string& zone) { return CreateNodePools(env, cluster, in_zone(zone)); },
      [&](const std::string&) -> core::Result<std::vector<Outcome>> {
        std::vector<Outcome> deleted;
        for (const auto& pool : pools) {
          auto outcome = DeleteNodePool(env, {cluster, pool.name});
          if (!outcome) return core::Fail(outcome.error());
          deleted.push_back(std::move(*outcome));
        }
        return deleted;
      });
}

core::Result<std::vector<Outcome>> CreateTpuVmsInAnyZone(ProvisionEnv& env, const ZoneFailover& failover,
                                                         const std::string& project,
                                                         const std::vector<std::string>& names,
                                                         const gcp::tpu::NodeSpec& spec, const TpuVmsCreate& create) {
  auto resolved = Resolved(env, failover, project, spec.accelerator_type, "");
  if (!resolved) return core::Fail(resolved.error());
  std::string task = "tpu-vm";
  for (const auto& name : names) task += " " + name;
  return CreateInAnyZone(
      env, *resolved, task,
      [&](const std::string& zone) {
        std::vector<std::pair<gcp::tpu::NodeRef, gcp::tpu::NodeSpec>> vms;
        for (const auto& name : names) vms.push_back({{project, zone, name}, spec});
        return create(vms);
      },
      [&](const std::string& zone) -> core::Result<std::vector<Outcome>> {
        std::vector<Outcome> deleted;
        for (const auto& name : names) {
          auto outcome = DeleteTpuVm(env, {project, zone, name});
          if (!outcome) return core::Fail(outcome.error());
          deleted.push_back(std::move(*outcome));
        }
        return deleted;
      });
}

}  // namespace tputrain::workflow
