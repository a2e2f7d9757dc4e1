#!/usr/bin/env bash
# Serve Llama 3.1 405B with JetStream + MaxText on Pathways (a LeaderWorkerSet on a
# v6e-16 slice) on GKE: Meta's weights converted to an int8 MaxText checkpoint, the server up, a
# prompt answered; then everything the run made deleted. MODEL=llama2-70b DISAGGREGATED=1 is the
# guide's disaggregated Llama 2 70B (prefill and decode on two v6e-8 slices).
#
# Settings, from the environment:
#   PROJECT        Google Cloud project (required)
#   REGION         region of the cluster and the bucket (us-east5)
#   CLUSTER        GKE cluster name (jetstream)
#   BUCKET         bucket for the checkpoint and Pathways' scratch space (PROJECT-jetstream)
#   NAMESPACE      Kubernetes namespace of the server (default)
#   MODEL          llama3.1-405b or llama2-70b; DISAGGREGATED=1 serves it disaggregated
#   META_URL       the signed download URL from Meta's Llama page (needed to convert the weights)
#   CHECKPOINT     gs:// path of a checkpoint converted before: skips the conversion (9-10 hours
#                  for 405B, on a 160-vCPU m1-ultramem node)
#   PROMPT         what the server is asked (the guide's); MAX_TOKENS, the answer's length (200)
#   LWS_MANIFEST   a copy of the LeaderWorkerSet release manifest (file or URL) for clusters that
#                  cannot reach GitHub (default: the pinned release)
#   RUN            run id: the ledger every command records into (serve-UTC time)
#   DRY_RUN=1      print the requests of every step instead of sending them; nothing is created, so
#                  the steps that need the cluster to exist are skipped
#   PROVISION_ONLY=1  make and delete the cloud resources only, skipping the steps that run on the
#                  cluster (a rehearsal against `tputrain emulator start`, whose clusters run nothing)
set -euo pipefail

PROJECT=${PROJECT:?set PROJECT to your Google Cloud project}
REGION=${REGION:-us-east5}
CLUSTER=${CLUSTER:-jetstream}
BUCKET=${BUCKET:-$PROJECT-jetstream}
NAMESPACE=${NAMESPACE:-default}
MODEL=${MODEL:-llama3.1-405b}
DISAGGREGATED=${DISAGGREGATED:-0}
CHECKPOINT=${CHECKPOINT:-}
PROMPT=${PROMPT:-What are the top 5 programming languages}
MAX_TOKENS=${MAX_TOKENS:-200}
LWS_MANIFEST=${LWS_MANIFEST:-}
RUN=${RUN:-serve-$(date -u +%Y%m%d-%H%M%S)}
DRY_RUN=${DRY_RUN:-0}
PROVISION_ONLY=${PROVISION_ONLY:-0}

# serve convert and serve up read the bucket from the configuration, as every command here does.
export TPUTRAIN_PROJECT=$PROJECT TPUTRAIN_RUN=$RUN TPUTRAIN_BUCKET=$BUCKET

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
      # The server, the converter Job, the TPU and CPU pools, the cluster, the bucket and its binding.
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
serving=(--model "$MODEL")
[ "$DISAGGREGATED" = 1 ] && serving+=(--disaggregated)

echo "== APIs, cluster, bucket"
tputrain services enable container.googleapis.com storage.googleapis.com
tputrain cluster create "$CLUSTER" --location "$REGION" --workload-identity --gcs-fuse \
  --machine-type n2-standard-32 --scopes cloud-platform
tputrain bucket create "gs://$BUCKET" --bucket-location "$REGION"
# The converter and Pathways write to the bucket as the namespace's default service account.
tputrain iam bind-workload-identity --ksa "$NAMESPACE/default" --bucket "$BUCKET" --role roles/storage.objectUser

if [ "$DRY_RUN" = 1 ] || [ "$PROVISION_ONLY" = 1 ]; then
  # The TPU slice pool(s) serve up --create-nodepool makes below, as it makes them (the slice tputrain
  # plans for the model; one per role when disaggregated): a rehearsal sends the bodies that cost
  # money, and cleanup deletes the pools again.
  echo "== TPU slice node pools for $MODEL"
  tpu_type=$(command tputrain plan --model "$MODEL" --mode serve --format json | json_value accelerator_type)
  tputrain nodepool create "jetstream-$tpu_type" --cluster "$CLUSTER" --location "$REGION" --tpu-type "$tpu_type" \
    --num-slices "$([ "$DISAGGREGATED" = 1 ] && echo 2 || echo 1)"
  echo "== Skipped (DRY_RUN or PROVISION_ONLY): converting and serving run on the cluster"
  exit 0
fi

if [ -z "$CHECKPOINT" ]; then
  echo "== Checkpoint: Meta's weights, converted to MaxText and quantized to int8"
  : "${META_URL:?set META_URL to the download URL from Meta, or CHECKPOINT to a converted checkpoint}"
  tputrain nodepool create m1-pool --cluster "$CLUSTER" --location "$REGION" \
    --machine-type m1-ultramem-160 --disk-size 3000 --scopes cloud-platform
  # Follows the Job's log on stderr until it completes; stdout carries where the checkpoint is.
  CHECKPOINT=$(tputrain serve convert --model "$MODEL" "${cluster[@]}" --set "META_URL=$META_URL" \
    --format json | json_value checkpoint)
  # The converter's node bills by the hour; it is done.
  tputrain nodepool delete m1-pool --cluster "$CLUSTER" --location "$REGION" --yes
fi
echo "checkpoint: $CHECKPOINT"

echo "== Serving"
# --create-nodepool makes the slice(s) the model is planned on; --install-operators installs
# LeaderWorkerSet when the cluster lacks it. Returns once the server answers its health check.
tputrain serve up "${serving[@]}" "${cluster[@]}" --checkpoint "$CHECKPOINT" \
  --create-nodepool --install-operators ${LWS_MANIFEST:+--lws-manifest "$LWS_MANIFEST"}
# Asked through the API server's service proxy: no port-forward, no public address.
tputrain serve generate "${cluster[@]}" --prompt "$PROMPT" --max-tokens "$MAX_TOKENS" --stream
