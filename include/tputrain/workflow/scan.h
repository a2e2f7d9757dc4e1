#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/catalog/prices.h"
#include "tputrain/core/result.h"
#include "tputrain/state/ledger.h"
#include "tputrain/workflow/prices.h"
#include "tputrain/workflow/provision.h"

// Leaked resources: those in the project that carry the tputrain-run label but that no local
// ledger knows (the runner that made them died with its ledger). Only labelled resources are
// ever listed, so a scan never touches what tputrain did not create.
namespace tputrain::workflow {

struct ScanRequest {
  std::string project;
  // GKE locations (zones or regions) to list clusters in; empty: every location ("-").
  std::vector<std::string> locations;
  // TPU VM zones; empty: every zone ("-").
  std::vector<std::string> tpu_zones;
  // Only resources of this run (the label's value); empty: every run.
  std::string run_id;
  // --expired: only what carries a tputrain-expires label at or before `now_unix`, whether a
  // ledger knows it or not (a scheduled job clears what any run left past its --ttl).
  bool expired = false;
  int64_t now_unix = 0;
};

struct LeakedResource {
  state::ResourceKind kind = state::ResourceKind::kCluster;  // cluster, nodepool, tpu-vm, bucket or repository
  std::string name;      // what the user calls it (cluster, pool, node or bucket name)
  std::string resource;  // the key a ledger would hold: the full API name, or the bucket name
  std::string run_id;    // the tputrain-run label's value
  std::string location;  // zone or region ("" for buckets' multi-regions is their location)
  std::string cluster;   // node pools: the cluster's full name
  std::string project;   // the project scanned
  // TPU resources (TPU VMs, queued resources, TPU node pools): what they burn.
  std::string generation;  // "" for anything else
  int chips = 0;
  catalog::CapacityMode capacity = catalog::CapacityMode::kOnDemand;
  int64_t expires_at = 0;  // the tputrain-expires label, 0 when none
  // A cluster: its node pools the scan lists too, which go with it when it is deleted.
  std::vector<std::string> goes_with;
  // Why it stays although listed, empty when it goes: a cluster holding node pools of a run that
  // the scan does not list (another run's, a live one) is not deleted, as deleting it would take
  // them along; its own listed pools are deleted one by one instead.
  std::string kept;
};

nlohmann::json ToJson(const LeakedResource& leaked);

// What a listed TPU resource burns an hour at list price (its slice's chips, its region, billed
// as its capacity is); none for the rest, or without prices.
std::optional<double> PerHour(const LeakedResource& leaked, const Prices* prices);

// Every (kind, resource) key of a live entry in any ledger under `store`'s directory, and the
// runs whose ledger could not be read: their resources are neither listed nor deleted (they
// would otherwise look leaked), and the command then fails naming them (Unreadable).
using LedgeredKey = std::pair<state::ResourceKind, std::string>;
struct Ledgered {
  std::vector<LedgeredKey> keys;
  std::vector<std::string> unreadable_runs;
  std::vector<std::string> unreadable;  // "run ID: why", for the error
};
core::Result<Ledgered> LedgeredKeys(const state::LedgerStore& store);

// Lists clusters (with their node pools), TPU VMs, buckets and (in the regions of the request's
// locations) Artifact Registry repositories of the project, keeps those with
// the tputrain-run label, and drops those whose key is in `ledgered` or whose run's ledger
// could not be read. A resource whose name in the list answer is of another project is left out
// (with a warning): a scan never reaches past the project it was asked about.
core::Result<std::vector<LeakedResource>> ScanLeaked(ProvisionEnv& env, const ScanRequest& request,
                                                     const Ledgered& ledgered);

// Deletes `leaked` in cleanup order (node pools, clusters, TPU VMs, buckets with their objects,
// repositories with their images),
// each tier in parallel, each in the project scanned. Node pools of a cluster that is itself
// deleted go with it; a cluster that is `kept` stays (kKeptShared). Returns every outcome; the
// first failure (after every tier ran) is the error, listing what was done.
core::Result<std::vector<Outcome>> DeleteLeaked(ProvisionEnv& env, const std::vector<LeakedResource>& leaked);

// The command that deletes what a scan of `request` listed: every flag that chose the list
// (--expired, --run, --project, --location, --state-dir when given), so that run as printed it
// deletes that list and no more.
std::string DeleteLeakedCommand(const ScanRequest& request, const std::string& state_dir_flag);

class Root;

// `cleanup --scan [--expired] [--delete-leaked]` as the command gives it.
struct LeakScanRequest {
  bool scan = false;
  bool expired = false;
  bool delete_leaked = false;
  bool dry_run = false;   // refused: a scan only reads
  std::string run_id;     // only this run's resources (the label's value); empty: every run
  std::string state_dir;  // the ledgers whose resources are not leaked (empty: the default); must exist
};

struct LeakScan {
  ScanRequest request;
  Ledgered ledgered;  // its unreadable runs fail the command, once what was found is shown
  std::vector<LeakedResource> leaked;
  std::optional<Prices> prices;  // read only when something listed is a TPU slice
};

// The request checked before any call (--delete-leaked and --expired need --scan, no --dry-run,
// an existing --state-dir), the project and location from the settings, then the ledgers read and
// the project scanned at the root's wall clock.
core::Result<LeakScan> ScanForLeaks(Root& root, const LeakScanRequest& request);
// Deletes what `scan` listed (DeleteLeaked) through the root's Google APIs.
core::Result<std::vector<Outcome>> DeleteLeaks(Root& root, const LeakScan& scan);
// `cleanup --scan --format json`: each leaked resource with its per_hour (null when unpriced),
// their total and currency, where the prices came from, and with `deleted`, what the delete did.
nlohmann::json ToJson(const LeakScan& scan, const std::vector<Outcome>* deleted);

}  // namespace tputrain::workflow
