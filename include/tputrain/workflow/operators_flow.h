#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/workflow/kube_access.h"
#include "tputrain/workflow/operators.h"

// `tputrain operators check|install`: the operators found on a cluster, one installed there.
namespace tputrain::workflow {

class Root;

struct OperatorCheckRequest {
  KubeAccessFlags access;
  std::vector<std::string> names;  // empty: every known operator
};

// Each name checked first (a usage error naming the known operators), then the cluster reached
// and asked (CheckOperators). For an installed KubeRay, what its TPU webhook's presence means
// goes to the root's reporter: information when present, a warning when not, never a verdict.
core::Result<std::vector<OperatorStatus>> CheckOperators(Root& root, const OperatorCheckRequest& request);
// `operators check --format json`: a missing one with its fix; KubeRay's with its tpu_webhook.
nlohmann::json ToJson(const std::vector<OperatorStatus>& statuses);

struct OperatorInstallRequest {
  KubeAccessFlags access;
  LedgerFlags ledger;
  std::vector<std::string> names;  // exactly one
  std::string manifest;            // a file or URL; empty: the pinned release's
  std::string timeout = "5m";      // for its Deployments, core::ParseDuration's grammar; empty: 5m
  bool dry_run = false;            // server dry run: nothing applied, nothing recorded
};

struct OperatorInstalled {
  OperatorInfo info;
  OperatorInstall install;
  std::string run_id;
};

// The request checked before any call (one operator named, known, installed from a manifest, a
// valid --timeout), the run resolved before the manifest is read (a ledger that cannot record
// refuses the install first), then InstallOperator on the cluster.
core::Result<OperatorInstalled> InstallOperator(Root& root, const OperatorInstallRequest& request);
// `operators install --format json`: each object's action as a --dry-run names it.
nlohmann::json ToJson(const OperatorInstalled& installed, bool dry_run);

}  // namespace tputrain::workflow
