#!/usr/bin/env bash
# The demo's last word: one line saying whether anything of run RUN is left, from its ledger and
# from what the emulator at $TPUTRAIN_EMULATOR_URL still holds. Exit 0 when nothing is, 1 when
# something is (the line names it).
# Usage: scripts/demo-leftovers.sh TPUTRAIN RUN   (the environment demo.sh sets: the emulator's
# exports, the run's state directory)
set -euo pipefail
tputrain=$1
run=$2
# The ledger: --detailed-exitcode is 0 when cleanup has nothing left to delete, 3 when it has.
ledger_code=0
"$tputrain" cleanup --run "$run" --dry-run --detailed-exitcode >/dev/null 2>&1 || ledger_code=$?
# The project: the emulator's resources, counted (operations and Cloud Build's history and log
# bucket stay, as Google keeps them; the project's own IAM policy is the project's).
"$tputrain" emulator state --url "$TPUTRAIN_EMULATOR_URL" | LEDGER_CODE=$ledger_code RUN=$run python3 -c '
import json, os, sys
state = json.load(sys.stdin)
run = os.environ["RUN"]
kinds = {"clusters": "clusters", "tpuNodes": "TPU VMs", "queuedResources": "queued resources",
         "buckets": "buckets", "repositories": "repositories (with their images)",
         "serviceAccounts": "service accounts", "firewalls": "firewall rules"}
left = []
for key, name in kinds.items():
    items = [k for k in state.get(key, {}) if not k.endswith(".cloudbuild-logs.googleusercontent.com")]
    if items:
        left.append("%s: %s" % (name, ", ".join(sorted(items))))
ledger = int(os.environ["LEDGER_CODE"])
if ledger == 0 and not left:
    print("Nothing of run %s is left: its ledger has nothing to delete and the emulator holds none of its "
          "clusters, TPU VMs, buckets, repositories, service accounts or firewall rules." % run)
    sys.exit(0)
said = "its ledger still has resources to delete" if ledger == 3 else (
    "its ledger cannot be read (exit %d)" % ledger if ledger else "its ledger has nothing to delete")
print("LEFT of run %s: %s; the emulator holds %s" % (run, said, "; ".join(left) or "nothing of it"))
sys.exit(1)'
