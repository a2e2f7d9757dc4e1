#!/usr/bin/env bash
# `tputrain up` of the 001 stack against the sum of its steps run one after another (what
# examples/001-train-llama3-8b-gke.sh does) and against its critical path (the longest chain:
# services → cluster → the slice's pool, each command after the other), on the emulator with
# fixed operation latencies: a cluster 20 s, a node pool 15 s, an image build 20 s, the rest
# (API enables, the repository, deletes) 2 s. Each measurement starts from a fresh emulator (a
# new project: every API disabled until enabled). The cluster-side steps (apply, workload) are
# left out: the emulator's clusters run nothing. Prints each run and the medians' ratios, and a
# second `up` of the same file (reads only).
# Usage: bench/up.sh [RUNS]   (TPUTRAIN=path/to/tputrain to pick a binary; default 3 runs)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
tputrain=$(realpath "${TPUTRAIN:-build/tputrain}")
[ -x "$tputrain" ] || { echo "bench/up.sh: $tputrain not built (run scripts/build.sh)" >&2; exit 2; }
stack=$PWD/examples/001-train-llama3-8b-gke.yaml
latency=2s,clusters.create=20s,nodePools.create=15s,builds.create=20s,repositories.create=2s,services.batchEnable=2s
apis=container.googleapis.com,storage.googleapis.com,artifactregistry.googleapis.com,cloudbuild.googleapis.com

work=$(mktemp -d)
pid=
stop_emulator() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=; fi; }
cleanup() { stop_emulator; rm -rf "$work"; }
trap cleanup EXIT

start_emulator() {
  stop_emulator
  # A fresh file: the wait below must not read the previous emulator's port.
  rm -f "$work/emulator.env"
  "$tputrain" emulator start --port 0 --op-latency "$latency" --disabled-apis "$apis" >"$work/emulator.env" \
    2>"$work/emulator.log" &
  pid=$!
  until grep -qs '^export CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE=' "$work/emulator.env"; do sleep 0.05; done
  eval "$(grep '^export ' "$work/emulator.env")"
  echo bench-token >"$work/token"
  export CLOUDSDK_AUTH_ACCESS_TOKEN_FILE=$work/token XDG_STATE_HOME=$work/state-$RANDOM
}

export PROJECT=bench TPUTRAIN_PROJECT=bench TPUTRAIN_LOCATION=us-east5-b
unset CLOUDSDK_CORE_PROJECT KUBECONFIG RAY_ADDRESS

now() { date +%s%N; }
seconds() { awk -v ns="$1" 'BEGIN {printf "%.1f", ns / 1e9}'; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# What the 001 script does for the same resources, one command after another.
script_steps() {
  local run=$1 t=$TPUTRAIN_LOCATION
  export TPUTRAIN_RUN=$run
  "$tputrain" services enable ${apis//,/ } >/dev/null
  "$tputrain" cluster create ray-tpu --location "$t" --ray-operator --gcs-fuse --workload-identity \
    --machine-type n1-standard-16 --tpu-type v6e-16 >/dev/null
  "$tputrain" bucket create gs://bench-maxtext --bucket-location us-east5 >/dev/null
  "$tputrain" iam bind-workload-identity --ksa default/ray-ksa --bucket bench-maxtext --role roles/storage.objectUser \
    >/dev/null 2>&1
  "$tputrain" registry create tputrain --location us-east5 >/dev/null
  "$tputrain" render maxtext-ray-image --set TPU_TYPE=v6e-16 -o "$work/image-$run" >/dev/null
  "$tputrain" image build "$work/image-$run" --location us-east5 \
    --tag us-east5-docker.pkg.dev/bench/tputrain/ray-maxtext:latest >/dev/null 2>&1
}

# The longest chain alone: the APIs, the cluster, then its slice's pool.
chain_steps() {
  export TPUTRAIN_RUN=$1
  "$tputrain" services enable ${apis//,/ } >/dev/null
  "$tputrain" cluster create ray-tpu --location us-east5-b --ray-operator --gcs-fuse --workload-identity \
    --machine-type n1-standard-16 >/dev/null
  "$tputrain" nodepool create v6e-16 --cluster ray-tpu --location us-east5-b --tpu-type v6e-16 >/dev/null
}

: >"$work/script"; : >"$work/chain"; : >"$work/up"; : >"$work/again"
for ((i = 1; i <= runs; i++)); do
  start_emulator
  t0=$(now); script_steps "script-$i"; t1=$(now)
  echo $((t1 - t0)) >>"$work/script"

  start_emulator
  t0=$(now); chain_steps "chain-$i"; t1=$(now)
  echo $((t1 - t0)) >>"$work/chain"

  start_emulator
  export RUN=up-$i
  t0=$(now); "$tputrain" up -f "$stack" --skip apply,workload >"$work/up-$i.out" 2>"$work/up-$i.err"; t1=$(now)
  echo $((t1 - t0)) >>"$work/up"
  t2=$(now); "$tputrain" up -f "$stack" --skip apply,workload >"$work/again-$i.out" 2>&1; t3=$(now)
  echo $((t3 - t2)) >>"$work/again"
  "$tputrain" down -f "$stack" --yes >/dev/null 2>&1
  printf 'run %d: script %ss, critical path %ss, up %ss, second up %ss\n' "$i" "$(seconds "$(tail -1 "$work/script")")" \
    "$(seconds "$(tail -1 "$work/chain")")" "$(seconds $((t1 - t0)))" "$(seconds $((t3 - t2)))"
done

script=$(median <"$work/script"); chain=$(median <"$work/chain"); up=$(median <"$work/up"); again=$(median <"$work/again")
awk -v s="$script" -v c="$chain" -v u="$up" -v a="$again" -v n="$runs" 'BEGIN {
  printf "medians of %d runs (latencies: cluster 20 s, pool 15 s, build 20 s, the rest 2 s):\n", n
  printf "  steps one after another (the script): %6.1f s\n", s / 1e9
  printf "  critical path (services, cluster, pool): %6.1f s   (latencies alone: 37.0 s)\n", c / 1e9
  printf "  tputrain up:                          %6.1f s   = %.2fx the critical path, %.2fx faster than the script\n", u / 1e9, u / c, s / u
  printf "  second tputrain up (nothing changed): %6.2f s\n", a / 1e9
}'
