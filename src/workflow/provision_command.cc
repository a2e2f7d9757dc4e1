#include "tputrain/workflow/provision_command.h"

#include <set>

#include "tputrain/core/duration.h"
#include "tputrain/workflow/expiry.h"
#include "tputrain/workflow/prices.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/services.h"

namespace tputrain::workflow {
namespace {

// Says how to go on from a failure: resume, clean up, or read what the ledger holds.
core::Error WithHints(core::Error error, const std::string& run_id) {
  if (error.kind == core::ErrorKind::kDeadlineExceeded && error.http_status == 0) {
    error.message += "; run the same command again to resume waiting (creates adopt what exists)";
  }
  if (error.kind == core::ErrorKind::kCancelled) {
    error.message += "; run the same command again to resume, or 'tputrain cleanup --run " + run_id +
                     " --yes' to delete what was made";
  }
  // A usage error the flow found before any create (a cluster too old for the pool) left nothing.
  if (!core::IsUsageError(error)) {
    error.message += "\n  what exists is recorded in the run ledger: tputrain runs show --run " + run_id;
  }
  return error;
}

// --dry-run: nothing is sent, not even reads, and no credentials are needed.
core::Result<ProvisionResult> DryRun(Root& root, const ProvisionRunFlags& flags, const ProvisionPlan& plan,
                                     int64_t expires_at) {
  ProvisionResult result{.dry_run = true, .image = plan.image};
  auto env = root.Provision(nullptr);
  env.dry_run = &result.planned;
  env.expires_at = expires_at;
  const std::string given = flags.run_id.empty() ? root.env().GetOr("TPUTRAIN_RUN", "") : flags.run_id;
  if (!given.empty()) {
    auto valid = state::ValidateNewRunId(flags.run_id.empty() ? "TPUTRAIN_RUN" : "--run", given);
    if (!valid) return core::Fail(valid.error());
  }
  env.run_id = given.empty() ? "RUN_ID" : given;
  result.run_id = env.run_id;
  auto outcomes = plan.run(env);
  if (!outcomes) return core::Fail(outcomes.error());
  result.outcomes = std::move(*outcomes);
  return result;
}

}  // namespace

core::Result<ProvisionResult> Provision(Root& root, const ProvisionRunFlags& flags, const ProvisionPlan& plan) {
  auto timeout = core::ParseOptionalDuration("--timeout", flags.timeout);
  if (!timeout) return core::Fail(timeout.error());
  auto expires_at = ExpiresAt(root.clock().WallNow(), flags.ttl);
  if (!expires_at) return core::Fail(expires_at.error());
  if (root.dry_run()) return DryRun(root, flags, plan, *expires_at);
  // The run first: a ledger that cannot record refuses the command before any call.
  state::LedgerStore& ledger = root.Ledger(flags.state_dir);
  auto run_id = ledger.ResolveRun(flags.run_id, root.env(), /*create=*/true);
  if (!run_id) return core::Fail(run_id.error());
  auto google = root.Google();
  if (!google) return core::Fail(google.error());
  auto env = root.Provision(*google);
  env.ledger = &ledger;
  env.run_id = *run_id;
  env.prices = TpuPricesOnFirstUse(root);
  env.expires_at = *expires_at;
  env.async = flags.async;
  env.recreate_unusable = flags.recreate_unusable;
  env.poll.timeout = *timeout;
  auto outcomes = plan.run(env);
  std::set<std::string> enabled;
  while (!outcomes && flags.enable_apis) {
    auto settings = root.Settings();
    const std::string project = settings ? settings->Get("project").value_or("") : "";
    auto again = EnableApiFor(env, outcomes.error(), project, enabled);
    if (!again) return core::Fail(again.error());
    if (!*again) break;
    outcomes = plan.run(env);
  }
  if (!outcomes) return core::Fail(WithHints(outcomes.error(), *run_id));
  return ProvisionResult{*run_id, std::move(*outcomes), false, {}, plan.image};
}

}  // namespace tputrain::workflow
