#!/usr/bin/env bash
# Serve a model with vLLM on a GKE TPU slice (the vllm-tpu image, its OpenAI-compatible API): the
# cluster, the slice's node pool and the vLLM Deployment (one v6e host; a LeaderWorkerSet with Ray
# on a multi-host slice), waited for through the first load and XLA compile, asked once whole
# and once streamed, then everything the run made deleted.
#
# Settings, from the environment:
#   PROJECT          Google Cloud project (required)
#   REGION           region of the cluster (us-east5)
#   CLUSTER          GKE cluster name (vllm)
#   NAMESPACE        Kubernetes namespace of the server (default)
#   MODEL            a catalog model (llama3-8b, llama2-70b, llama3.1-405b), a Hugging Face repo
#                    id ORG/NAME or gs://BUCKET/DIR (these two with TPU_TYPE) (llama3-8b)
#   TPU_TYPE         the slice (default: the one planned for the model, v6e-1 for llama3-8b)
#   HF_TOKEN_FILE    a file holding a Hugging Face token, for gated models (Meta's Llama are):
#                    it becomes a Kubernetes Secret and is never printed
#   PROMPT           what the server is asked; MAX_TOKENS, the answer's length (64)
#   LWS_MANIFEST     a copy of the LeaderWorkerSet release manifest (multi-host; file or URL) for
#                    clusters that cannot reach GitHub (default: the pinned release)
#   RUN              run id: the ledger every command records into (vllm-UTC time)
#   DRY_RUN=1        print the requests of every step instead of sending them; nothing is created,
#                    so the steps that need the cluster to exist are skipped
#   PROVISION_ONLY=1 make and delete the cloud resources only, skipping the steps that run on the
#                    cluster (a rehearsal against `tputrain emulator start`, whose clusters run nothing)
set -euo pipefail

PROJECT=${PROJECT:?set PROJECT to your Google Cloud project}
REGION=${REGION:-us-east5}
CLUSTER=${CLUSTER:-vllm}
NAMESPACE=${NAMESPACE:-default}
MODEL=${MODEL:-llama3-8b}
TPU_TYPE=${TPU_TYPE:-}
HF_TOKEN_FILE=${HF_TOKEN_FILE:-}
PROMPT=${PROMPT:-What are the top 5 programming languages}
MAX_TOKENS=${MAX_TOKENS:-64}
LWS_MANIFEST=${LWS_MANIFEST:-}
RUN=${RUN:-vllm-$(date -u +%Y%m%d-%H%M%S)}
DRY_RUN=${DRY_RUN:-0}
PROVISION_ONLY=${PROVISION_ONLY:-0}

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
      # The server and its Secret, the slice's pool, the cluster.
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
serving=(--engine vllm --model "$MODEL" ${TPU_TYPE:+--tpu-type "$TPU_TYPE"})

echo "== APIs, cluster"
tputrain services enable container.googleapis.com
tputrain cluster create "$CLUSTER" --location "$REGION" --machine-type n2-standard-8

if [ "$DRY_RUN" = 1 ] || [ "$PROVISION_ONLY" = 1 ]; then
  # The slice pool serve up --create-nodepool makes below, as it makes it (TPU_TYPE, else the slice
  # planned for the model's bf16 weights): a rehearsal sends the body that costs money, and cleanup
  # deletes the pool again.
  echo "== TPU slice node pool for $MODEL"
  tpu_type=${TPU_TYPE:-$(command tputrain plan --model "$MODEL" --mode serve --dtype bf16 --format json |
    json_value accelerator_type)}
  tputrain nodepool create "vllm-$tpu_type" --cluster "$CLUSTER" --location "$REGION" --tpu-type "$tpu_type"
  echo "== Skipped (DRY_RUN or PROVISION_ONLY): the server is on the cluster"
  exit 0
fi

echo "== Serving"
# --create-nodepool makes the slice's pool; --install-operators installs LeaderWorkerSet when a
# multi-host slice needs it. Returns once vLLM answers /health (a first start compiles for 10-30 min).
tputrain serve up "${serving[@]}" "${cluster[@]}" ${HF_TOKEN_FILE:+--hf-token-file "$HF_TOKEN_FILE"} \
  --create-nodepool --install-operators ${LWS_MANIFEST:+--lws-manifest "$LWS_MANIFEST"}
# Asked through the API server's service proxy: no port-forward, no public address.
tputrain serve generate --engine vllm "${cluster[@]}" --prompt "$PROMPT" --max-tokens "$MAX_TOKENS"
tputrain serve generate --engine vllm "${cluster[@]}" --prompt "$PROMPT" --max-tokens "$MAX_TOKENS" --stream \
  --format json
tputrain serve down --engine vllm --model "$MODEL" "${cluster[@]}" --yes
