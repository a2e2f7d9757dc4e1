#!/usr/bin/env bash
# The main job, locally, with no cloud account: size the seed workloads, provision seed 001's
# resources against tputrain's own Google Cloud emulator, train a tiny MaxText model as a Ray job
# on a local Ray head (real MaxText, on CPU), then delete everything again.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh >/dev/null
build_dir=${TPUTRAIN_BUILD_DIR:-build}
case $build_dir in /*) ;; *) build_dir=$PWD/$build_dir ;; esac
tputrain=$build_dir/tputrain
cache=${TPUTRAIN_TEST_CACHE:-$HOME/.cache/tputrain-test}
work=$(mktemp -d /tmp/tputrain-demo-XXXXXX)
emulator_pid=""
ray_pid=""
cleanup() {
  # By PID: `ray start --block` stops its own head when told to, and no other Ray on the machine.
  [ -n "$ray_pid" ] && kill "$ray_pid" 2>/dev/null && wait "$ray_pid" 2>/dev/null || true
  [ -n "$emulator_pid" ] && kill "$emulator_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "== 1. Sizing the seed workloads (tputrain plan)"
for model in llama3-8b llama3.1-405b llama2-70b saxml-175b-test; do
  echo "-- $model"
  "$tputrain" plan --model "$model" | grep -E '^(slice|slices|node pool|ici) '
done

echo "== 2. Provisioning seed 001 against the local emulator"
# A new project: the APIs seed 001 needs start disabled, as Google's do.
"$tputrain" emulator start --port 0 --op-latency 1s --disabled-apis container,artifactregistry,cloudbuild \
  >"$work/emulator.env" 2>"$work/emulator.log" &
emulator_pid=$!
for _ in $(seq 100); do grep -q '^export CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE' "$work/emulator.env" && break; sleep 0.1; done
# shellcheck disable=SC1090
source <(grep '^export ' "$work/emulator.env")
echo "demo-token" >"$work/token"
export CLOUDSDK_AUTH_ACCESS_TOKEN_FILE=$work/token CLOUDSDK_CORE_PROJECT=tputrain-demo TPUTRAIN_RUN=demo
export CLOUDSDK_CONFIG=$work/gcloud XDG_STATE_HOME=$work/state KUBECONFIG=$work/kubeconfig
"$tputrain" services enable container.googleapis.com artifactregistry.googleapis.com cloudbuild.googleapis.com
"$tputrain" registry create tputrain --location us-east5
# Seed 001's image: its Dockerfile, built by (emulated) Cloud Build and pushed to the repository.
"$tputrain" render maxtext-ray-image -o "$work/image" >/dev/null
"$tputrain" image build "$work/image" --location us-east5 \
  --tag us-east5-docker.pkg.dev/tputrain-demo/tputrain/ray-maxtext:latest
"$tputrain" cluster create ray-tpu --location us-east5-b --ray-operator --gcs-fuse --workload-identity \
  --machine-type n1-standard-16 --tpu-type v6e-16
"$tputrain" bucket create gs://tputrain-demo-ckpt --bucket-location us-east5
"$tputrain" iam bind-workload-identity --ksa default/ray-ksa --bucket tputrain-demo-ckpt --role roles/storage.objectUser
"$tputrain" runs show

echo "== 3. Training MaxText (CPU smoke preset) as a job on a local Ray head"
scripts/peers/ray.sh
scripts/peers/maxtext.sh
ray_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
dash_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
PATH="$cache/maxtext/bin:$PATH" "$cache/maxtext/bin/ray" start --head --node-ip-address 127.0.0.1 --port "$ray_port" --dashboard-host 127.0.0.1 \
  --dashboard-port "$dash_port" --min-worker-port 20000 --max-worker-port 20999 --num-cpus 2 \
  --disable-usage-stats --temp-dir "$work/ray" --block >"$work/ray.log" 2>&1 &
ray_pid=$!
for _ in $(seq 600); do curl -sf "http://127.0.0.1:$dash_port/api/version" >/dev/null && break; sleep 0.2; done
"$tputrain" submit --model maxtext-cpu-smoke --address "http://127.0.0.1:$dash_port"

echo "== 4. Deleting everything the run created, from its ledger"
"$tputrain" cleanup --dry-run
"$tputrain" cleanup --yes

echo "== 5. What is left of the run"
scripts/demo-leftovers.sh "$tputrain" demo
