#!/usr/bin/env bash
# Serve Saxml's 175B test model (LmCloudSpmd175B32Test, random weights) on two v5e 4x8
# slices of a GKE cluster, ask it, take it out of the cell, then delete everything the run made
# (the guide itself has no teardown: its 16 TPU nodes would keep billing).
#
# Settings, from the environment:
#   PROJECT          Google Cloud project (required)
#   REGION           region of the cluster and the bucket (us-east1)
#   CLUSTER          GKE cluster name (saxml)
#   BUCKET           bucket holding the Saxml cell's state (PROJECT-gke-bucket)
#   NAMESPACE        Kubernetes namespace of the Saxml servers (default)
#   GSA              Google service account the servers act as (sax-iam-sa)
#   JOBSET_MANIFEST  a copy of the JobSet release manifest (file or URL) for clusters that cannot
#                    reach GitHub (default: the pinned release)
#   RUN              run id: the ledger every command records into (saxml-UTC time)
#   DRY_RUN=1        print the requests of every step instead of sending them; nothing is created,
#                    so the steps that need the cluster to exist are skipped
#   PROVISION_ONLY=1 make and delete the cloud resources only, skipping the steps that run on the
#                    cluster (a rehearsal against `tputrain emulator start`, whose clusters run nothing)
set -euo pipefail

PROJECT=${PROJECT:?set PROJECT to your Google Cloud project}
REGION=${REGION:-us-east1}
CLUSTER=${CLUSTER:-saxml}
BUCKET=${BUCKET:-$PROJECT-gke-bucket}
NAMESPACE=${NAMESPACE:-default}
GSA=${GSA:-sax-iam-sa}
JOBSET_MANIFEST=${JOBSET_MANIFEST:-}
RUN=${RUN:-saxml-$(date -u +%Y%m%d-%H%M%S)}
DRY_RUN=${DRY_RUN:-0}
PROVISION_ONLY=${PROVISION_ONLY:-0}
MODEL=saxml-175b-test

export TPUTRAIN_PROJECT=$PROJECT TPUTRAIN_RUN=$RUN

tputrain() {
  if [ "$DRY_RUN" = 1 ]; then command tputrain --dry-run "$@"; else command tputrain "$@"; fi
}

# The first value of "KEY": in tputrain's --format json output (pretty-printed, one key a line).
json_value() { sed -n "s/^ *\"$1\": *\"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" | sed -n 1p; }

finish() {
  local status=$?
  trap - EXIT
  # From here a second Ctrl-C or TERM (a CI cancelling the job) must not cut the cleanup short:
  # the shell ignores them, and tputrain runs in a session of its own, out of the terminal's reach.
  trap '' INT TERM
  if [ "$DRY_RUN" != 1 ]; then
    if ! command tputrain runs show --run "$RUN" >/dev/null 2>&1; then
      # The first command stopped before recording anything (bad input, say): nothing to delete.
      echo "run $RUN recorded nothing: nothing to clean up" >&2
    else
      # Unpublishes the model first if it is still in the cell (a later admin server would load it
      # again from the bucket), then the servers, both slices, the cluster, the bucket and accounts.
      shielded tputrain cleanup --run "$RUN" --yes || status=1
      # Exit 3: something of the run is still there, a leak to look at; any other: no answer.
      local leak=0
      shielded tputrain cleanup --run "$RUN" --dry-run --detailed-exitcode >/dev/null || leak=$?
      if [ "$leak" = 3 ]; then
        echo "LEAK: run $RUN still has resources; see: tputrain runs show --run $RUN" >&2
        status=1
      elif [ "$leak" != 0 ]; then
        echo "the leak check of run $RUN failed (exit $leak); see: tputrain runs show --run $RUN" >&2
        status=1
      fi
    fi
  fi
  exit "$status"
}
# setsid where there is one (util-linux): the command's own session gets no Ctrl-C from a terminal.
shielded() { if command -v setsid >/dev/null; then setsid -w "$@"; else "$@"; fi; }
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cluster=(--cluster "$CLUSTER" --location "$REGION" -n "$NAMESPACE")

echo "== APIs, cluster, bucket, the servers' Google service account"
tputrain services enable container.googleapis.com storage.googleapis.com iam.googleapis.com
tputrain cluster create "$CLUSTER" --location "$REGION" --workload-identity
tputrain bucket create "gs://$BUCKET" --bucket-location "$REGION"
tputrain iam service-account create "$GSA" --role roles/storage.admin

if [ "$DRY_RUN" = 1 ] || [ "$PROVISION_ONLY" = 1 ]; then
  # The slice pools serve up --create-nodepool makes below, one per model replica, as it makes them:
  # a rehearsal sends the bodies that cost money, and cleanup deletes the pools again.
  echo "== TPU slice node pools, one per replica"
  tpu_type=$(command tputrain plan --model "$MODEL" --mode serve --format json | json_value accelerator_type)
  tputrain nodepool create "saxml-$tpu_type" --cluster "$CLUSTER" --location "$REGION" --tpu-type "$tpu_type" \
    --num-slices 2
  echo "== Skipped (DRY_RUN or PROVISION_ONLY): the account's binding and the servers are on the cluster"
  exit 0
fi

# The guide's route: the Kubernetes service account sax-sa acts as the Google one (annotated,
# and created when missing).
tputrain iam bind-workload-identity --ksa "$NAMESPACE/sax-sa" --gsa "$GSA@$PROJECT.iam.gserviceaccount.com" \
  --annotate-ksa "${cluster[@]}"

echo "== Serving"
# Both slices' node pools, JobSet if missing, the admin server, 16 model servers and sax-http;
# then the model is published and awaited until both replicas are active.
tputrain serve up --model "$MODEL" "${cluster[@]}" --set "BUCKET=$BUCKET" --create-nodepool --install-operators \
  ${JOBSET_MANIFEST:+--jobset-manifest "$JOBSET_MANIFEST"}
tputrain serve generate --engine saxml "${cluster[@]}" --query "Q: How many days are in a week? A:"
tputrain serve list "${cluster[@]}"
tputrain serve unpublish "${cluster[@]}" --yes
