#!/usr/bin/env bash
# Train Llama 3 8B with MaxText on a v6e-16 slice of a GKE cluster, through the Ray
# operator (KubeRay), then delete everything the run made.
#
# Settings, from the environment:
#   PROJECT     Google Cloud project (required)
#   ZONE        zone of the cluster and its TPU slice (us-east5-b); its region holds the bucket and
#               the image repository
#   CLUSTER     GKE cluster name (ray-tpu)
#   BUCKET      checkpoint bucket, mounted at /data in the Ray pods (PROJECT-maxtext)
#   KSA         Kubernetes service account of the Ray pods (ray-ksa), in NAMESPACE (default)
#   REPOSITORY  Artifact Registry repository for the image (tputrain)
#   MODEL       MaxText model preset (llama3-8b); STEPS, training steps (the preset's: 100)
#   TPU_TYPE    TPU slice (default: the smallest that fits MODEL, as `tputrain plan` sizes it)
#   RUN         run id: the ledger every command records into (train-UTC time)
#   DRY_RUN=1   print the requests of every step instead of sending them; nothing is created, so the
#               steps that need the cluster to exist are skipped
#   PROVISION_ONLY=1  make and delete the cloud resources only, skipping the steps that run on the
#               cluster (a rehearsal against `tputrain emulator start`, whose clusters run nothing)
set -euo pipefail

PROJECT=${PROJECT:?set PROJECT to your Google Cloud project}
ZONE=${ZONE:-us-east5-b}
REGION=${ZONE%-*}
CLUSTER=${CLUSTER:-ray-tpu}
BUCKET=${BUCKET:-$PROJECT-maxtext}
KSA=${KSA:-ray-ksa}
NAMESPACE=${NAMESPACE:-default}
REPOSITORY=${REPOSITORY:-tputrain}
MODEL=${MODEL:-llama3-8b}
STEPS=${STEPS:-}
# Where the slice's chips come from: on-demand, spot, reservation (with RESERVATION) or flex-start.
CAPACITY=${CAPACITY:-on-demand}
RESERVATION=${RESERVATION:-}
RUN=${RUN:-train-$(date -u +%Y%m%d-%H%M%S)}
DRY_RUN=${DRY_RUN:-0}
PROVISION_ONLY=${PROVISION_ONLY:-0}

# Every command of this script records what it creates in one ledger, which cleanup reads.
export TPUTRAIN_PROJECT=$PROJECT TPUTRAIN_RUN=$RUN

tputrain() {
  if [ "$DRY_RUN" = 1 ]; then command tputrain --dry-run "$@"; else command tputrain "$@"; fi
}

# The first value of "KEY": in tputrain's --format json output (pretty-printed, one key a line).
json_value() { sed -n "s/^ *\"$1\": *\"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" | sed -n 1p; }

workdir=$(mktemp -d)
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
  rm -rf "$workdir"
  exit "$status"
}
# setsid where there is one (util-linux): the command's own session gets no Ctrl-C from a terminal.
shielded() { if command -v setsid >/dev/null; then setsid -w "$@"; else "$@"; fi; }
trap finish EXIT
# Without these, an interrupted or killed script would skip the EXIT trap and leave the slice billing.
trap 'exit 130' INT
trap 'exit 143' TERM

echo "== Sizing: the slice $MODEL needs"
training=()
[ -z "$STEPS" ] || training+=(--steps "$STEPS")
if [ -n "${TPU_TYPE:-}" ]; then
  training+=(--tpu-type "$TPU_TYPE")
else
  TPU_TYPE=$(command tputrain plan --model "$MODEL" --format json | json_value accelerator_type)
fi
echo "$MODEL trains on $TPU_TYPE"

echo "== APIs, cluster, TPU slice node pool"
tputrain services enable container.googleapis.com storage.googleapis.com artifactregistry.googleapis.com \
  cloudbuild.googleapis.com
# One command for the cluster (Ray operator, GCS FUSE, workload identity) and the slice's node pool.
capacity=(--capacity "$CAPACITY")
[ -z "$RESERVATION" ] || capacity+=(--reservation "$RESERVATION")
# A reservation is read first: one too small for the slice stops here, before the cluster exists.
tputrain cluster create "$CLUSTER" --location "$ZONE" --ray-operator --gcs-fuse --workload-identity \
  --machine-type n1-standard-16 --tpu-type "$TPU_TYPE" "${capacity[@]}"

echo "== Checkpoint bucket, readable and writable by the pods' service account"
tputrain bucket create "gs://$BUCKET" --bucket-location "$REGION"
tputrain iam bind-workload-identity --ksa "$NAMESPACE/$KSA" --bucket "$BUCKET" --role roles/storage.objectUser

echo "== Image: Ray + MaxText, built by Cloud Build"
tputrain registry create "$REPOSITORY" --location "$REGION"
command tputrain render maxtext-ray-image --set "TPU_TYPE=$TPU_TYPE" -o "$workdir/image" >/dev/null
# stdout is IMAGE@sha256:DIGEST; submit below uses the image this run built without being told.
tputrain image build "$workdir/image" --location "$REGION" \
  --tag "$REGION-docker.pkg.dev/$PROJECT/$REPOSITORY/ray-maxtext:latest"

if [ "$DRY_RUN" = 1 ] || [ "$PROVISION_ONLY" = 1 ]; then
  echo "== Skipped (DRY_RUN or PROVISION_ONLY): the service account and the training run on the cluster"
  exit 0
fi

echo "== Training"
# The Kubernetes service account the RayCluster's pods run as (the guide's kubectl create serviceaccount);
# ledgered like everything else, so cleanup deletes it.
tputrain apply --cluster "$CLUSTER" --location "$ZONE" -f - <<EOF
apiVersion: v1
kind: ServiceAccount
metadata:
  name: $KSA
  namespace: $NAMESPACE
EOF
# The RayCluster template's values (tputrain render raycluster-maxtext --describe). A values file,
# unlike --raycluster-set, may name values a template does not use (the CPU presets' has no KSA).
cat >"$workdir/raycluster-values.yaml" <<EOF
KSA_NAME: $KSA
GS_BUCKET: $BUCKET
EOF
# Renders the RayCluster for the slice, applies it, waits until KubeRay says ready, submits the
# job through the API server (no port-forward) and follows it to the end. MaxText's run is named
# after tputrain's, so its checkpoints land in gs://BUCKET/RUN.
tputrain submit --model "$MODEL" "${training[@]}" --run-name "$RUN" \
  --cluster "$CLUSTER" --location "$ZONE" -n "$NAMESPACE" \
  --raycluster-values "$workdir/raycluster-values.yaml" --format json >"$workdir/summary.json"
echo "job $(json_value status <"$workdir/summary.json"): $(json_value tokens_per_second_per_device <"$workdir/summary.json") tokens/s per device, MFU $(json_value mfu <"$workdir/summary.json")"
