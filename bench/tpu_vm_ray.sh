#!/usr/bin/env bash
# `tputrain tpu-vm create --ray` and `tputrain job submit` against a real Ray 2.60 on emulated TPU
# VM hosts (`tputrain emulator start --tpu-hosts netns --host-path <Ray venv>`, as
# tests/workflow/tpu_vm_ray_integration_test.cc does), in one run:
#  1. create: the wall time of `tputrain tpu-vm create NAME --accelerator-type v5p-16 --ray` (the
#     emulator's --op-latency 300ms) until it returns, which is when both hosts report
#     tputrain/ray-state=ready: the create operation, each host's network namespace booting and
#     running the startup script (Ray head on worker 0, worker 1 joining it), and tputrain's polls
#     of the guest attributes. CREATES times, each node deleted before the next; the last one stays
#     for part 2.
#  2. a 50 MB --working-dir (incompressible bytes from /dev/urandom, plus a per-run nonce file so
#     Ray's package cache never lets a tool skip the upload) submitted to that node's head,
#     REPETITIONS interleaved runs, the whole command's wall time (zip, upload, submit, follow the
#     job's log to its end), medians and ratios of medians:
#     (a) tputrain job submit --tpu-vm NAME: its own in-process IAP tunnel through the emulator's
#         relay, the token read from the node's metadata;
#     (b) tputrain job submit --address http://127.0.0.1:LPORT --header X-Ray-Authorization:... through
#         `gcloud beta compute start-iap-tunnel INSTANCE 8265` kept running in the background;
#     (c) ray job submit --address http://127.0.0.1:LPORT (RAY_AUTH_MODE=token, RAY_AUTH_TOKEN)
#         through the same gcloud tunnel: what a user would run otherwise.
# Needs root (ip netns), gcloud, curl, python3 and the Ray peer's venv. Each host is a real Ray
# node, so two share this machine with --num-cpus=1 --object-store-memory=100000000. The token is
# never printed. Everything is removed on exit, Ctrl-C too: the gcloud tunnel and the emulator by
# PID, the node deleted (the emulator ends its hosts' processes and namespaces), the temp dir.
# Usage: bench/tpu_vm_ray.sh [REPETITIONS]   (default 5; CREATES=3, TPUTRAIN=path/to/tputrain,
# the Ray venv from scripts/peers/ray.sh in ${TPUTRAIN_TEST_CACHE:-~/.cache/tputrain-test}/ray)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5}
creates=${CREATES:-3}
tputrain=$(realpath "${TPUTRAIN:-build/tputrain}")
venv=${TPUTRAIN_TEST_CACHE:-$HOME/.cache/tputrain-test}/ray
zone=us-east5-a
project=p
fail() { echo "bench/tpu_vm_ray.sh: $*" >&2; exit 2; }
[ -x "$tputrain" ] || fail "$tputrain not built (run scripts/build.sh)"
[ "$(id -u)" = 0 ] || fail "needs root (--tpu-hosts netns: each TPU VM host is a network namespace)"
for tool in ip curl python3 gcloud setpriv openssl timeout; do
  command -v "$tool" >/dev/null || fail "$tool is not installed"
done
[ -x "$venv/bin/ray" ] || fail "no Ray venv at $venv (run scripts/peers/ray.sh)"
[[ $reps =~ ^[1-9][0-9]*$ ]] || fail "REPETITIONS must be a positive count, not '$reps'"
[[ $creates =~ ^[1-9][0-9]*$ ]] || fail "CREATES must be a positive count, not '$creates'"

# --- clean-up: the tunnel and the emulator by PID, the node first, then the temp dir ------------
work=$(mktemp -d /tmp/trbench-tpuvmray-XXXXXX)
emulator_pid=
tunnel_pid=
node=
stop_pid() {  # TERM, a bounded wait, then KILL
  local tries=0
  [ -n "$1" ] || return 0
  kill "$1" 2>/dev/null || return 0
  while kill -0 "$1" 2>/dev/null && [ $tries -lt 100 ]; do sleep 0.2; tries=$((tries + 1)); done
  kill -9 "$1" 2>/dev/null || true
}
cleanup() {
  trap - EXIT INT TERM
  stop_pid "$tunnel_pid"
  # Deleting the node ends its hosts (by `ip netns pids`); stopping the emulator ends any left.
  if [ -n "$node" ] && [ -n "$emulator_pid" ]; then
    timeout 120 "$tputrain" tpu-vm delete "$node" --zone "$zone" --yes --state-dir "$work/state" >/dev/null 2>&1 || true
  fi
  stop_pid "$emulator_pid"
  rm -rf "$work"
  local left
  left=$(ip netns list 2>/dev/null | grep '^tpuemu' || true)
  [ -z "$left" ] || echo "bench/tpu_vm_ray.sh: network namespaces left behind: $left" >&2
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() {  # wait_for SECONDS COMMAND...: until COMMAND succeeds
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.3
  done
}
now_us() { echo "${EPOCHREALTIME/[.,]/}"; }

# --- the emulator, and tputrain and gcloud pointed at it ----------------------------------------
port=$(free_port)
emulator=http://127.0.0.1:$port
setpriv --pdeathsig TERM -- "$tputrain" emulator start --port "$port" --op-latency 300ms \
  --tpu-hosts netns --host-path "$venv" >"$work/emulator.out" 2>"$work/emulator.err" &
emulator_pid=$!
exported() { sed -n "s/^export $1=//p" "$work/emulator.out" | tail -1; }
wait_for 20 grep -q '^export CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE=' "$work/emulator.out" ||
  { tail -20 "$work/emulator.err" >&2; fail "the emulator did not start"; }
relay=$(exported TPUTRAIN_IAP_TUNNEL_URL)
relay_ca=$(exported CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE)
mkdir -p "$work/gcloud"
echo bench-token >"$work/token"
for api in CONTAINER TPU IAM CLOUDRESOURCEMANAGER SERVICEUSAGE ARTIFACTREGISTRY CLOUDBUILD; do
  export "CLOUDSDK_API_ENDPOINT_OVERRIDES_$api=$emulator/"
done
export CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE=$emulator/compute/v1/
export CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE=$emulator/storage/v1/
export CLOUDSDK_CONFIG=$work/gcloud CLOUDSDK_AUTH_ACCESS_TOKEN_FILE=$work/token CLOUDSDK_CORE_PROJECT=$project
export CLOUDSDK_CORE_DISABLE_PROMPTS=1 CLOUDSDK_CORE_DISABLE_USAGE_REPORTING=true
export CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK=true CLOUDSDK_CORE_CHECK_GCE_METADATA=false
export TPUTRAIN_IAP_TUNNEL_URL=$relay CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE=$relay_ca XDG_STATE_HOME=$work/xdg
# gcloud prefers these to its custom CA file: the relay's CA for every client here.
export REQUESTS_CA_BUNDLE=$relay_ca CURL_CA_BUNDLE=$relay_ca
export RAY_USAGE_STATS_ENABLED=0 PYTHONUNBUFFERED=1
unset RAY_ADDRESS RAY_API_SERVER_ADDRESS RAY_JOB_HEADERS TPUTRAIN_RUN CLOUDSDK_COMPUTE_ZONE CLOUDSDK_COMPUTE_REGION
state_dir=$work/state

# --- 1. create --ray until every Ray node is alive ---------------------------------------------
: >"$work/create.wall"
for ((i = 1; i <= creates; i++)); do
  node=bench-ray-$i
  start=$(now_us)
  if ! "$tputrain" tpu-vm create "$node" --zone "$zone" --accelerator-type v5p-16 --ray \
    --ray-start-args "--num-cpus=1 --object-store-memory=100000000" --ray-timeout 4m \
    --state-dir "$state_dir" >"$work/create.out" 2>"$work/create.err"; then
    tail -20 "$work/create.err" >&2
    fail "tpu-vm create --ray failed"
  fi
  echo $(($(now_us) - start)) >>"$work/create.wall"
  grep -q '2/2 hosts ready' "$work/create.err" || { cat "$work/create.err" >&2; fail "create returned before 2/2 hosts ready"; }
  echo "create $i: $(awk -v us="$(tail -1 "$work/create.wall")" 'BEGIN {printf "%.1f s", us / 1e6}')" >&2
  if [ "$i" -lt "$creates" ]; then
    "$tputrain" tpu-vm delete "$node" --zone "$zone" --yes --state-dir "$state_dir" >/dev/null 2>"$work/delete.err" ||
      { cat "$work/delete.err" >&2; fail "tpu-vm delete failed"; }
    node=
  fi
done

# Worker 0's instance name (its hostname guest attribute) and the node's Ray token (its metadata).
instance=$(curl -sSf -X POST -H "Authorization: Bearer bench-token" -H "Content-Type: application/json" \
  --data '{"workerIds": ["0"]}' "$emulator/v2/projects/$project/locations/$zone/nodes/$node:getGuestAttributes" |
  python3 -c 'import json, sys
for item in json.load(sys.stdin)["guestAttributes"][0]["queryValue"].get("items", []):
    if item["key"] == "hostname": print(item["value"])')
[ -n "$instance" ] || fail "no hostname guest attribute for worker 0 of $node"
token=$(curl -sSf "$emulator/_emulator/state" | python3 -c 'import json, sys
for name, node in json.load(sys.stdin)["tpuNodes"].items():
    if name.endswith("/" + sys.argv[1]): print(node["metadata"]["tputrain-ray-token"])' "$node")
[ -n "$token" ] || fail "no tputrain-ray-token in the metadata of $node"

# --- 2. a 50 MB working_dir, three ways -----------------------------------------------------------
lport=$(free_port)
setpriv --pdeathsig TERM -- gcloud beta compute start-iap-tunnel "$instance" 8265 --zone "$zone" --project "$project" \
  --local-host-port="localhost:$lport" --iap-tunnel-url-override="$relay" --iap-tunnel-disable-connection-check \
  >"$work/gcloud.log" 2>&1 &
tunnel_pid=$!
address=http://127.0.0.1:$lport
head_up() {
  kill -0 "$tunnel_pid" 2>/dev/null || { cat "$work/gcloud.log" >&2; fail "gcloud start-iap-tunnel exited"; }
  curl -sf -o /dev/null -m 10 -H "X-Ray-Authorization: Bearer $token" "$address/api/version"
}
wait_for 60 head_up || { cat "$work/gcloud.log" >&2; fail "the head's dashboard is not reachable through gcloud's tunnel"; }

wd=$work/wd
mkdir -p "$wd"
head -c 50000000 /dev/urandom >"$wd/blob.bin"
job=(python -c 'import os; print(sum(os.path.getsize(f) for f in os.listdir(".")))')
expected=$((50000000 + 16))
run() {  # run TOOL: one submission of the working dir, a fresh nonce each time; its wall time in µs
  local start out_file=$work/$1.out
  openssl rand -hex 8 | tr -d '\n' >"$wd/nonce"  # 16 bytes: a new package hash, so a new upload
  start=$(now_us)
  case $1 in
    a) "$tputrain" job submit --tpu-vm "$node" --zone "$zone" --working-dir "$wd" -- "${job[@]}" ;;
    b) "$tputrain" job submit --address "$address" --header "X-Ray-Authorization: Bearer $token" \
      --working-dir "$wd" -- "${job[@]}" ;;
    c) RAY_AUTH_MODE=token RAY_AUTH_TOKEN=$token "$venv/bin/ray" job submit --address "$address" \
      --working-dir "$wd" -- "${job[@]}" ;;
  esac >"$out_file" 2>"$work/$1.err" || { tail -20 "$work/$1.err" >&2; fail "submission ($1) failed"; }
  echo $(($(now_us) - start)) >>"$work/$1.wall"
  echo "($1) $(awk -v us="$(tail -1 "$work/$1.wall")" 'BEGIN {printf "%.2f s", us / 1e6}')" >&2
  grep -qx "$expected" "$out_file" || { cat "$out_file" >&2; fail "submission ($1): the job did not print $expected"; }
}
for ((i = 0; i < reps; i++)); do
  for tool in a b c; do run "$tool"; done
done

median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
cmin() { sort -n "$1" | head -1; }
cmax() { sort -n "$1" | tail -1; }
awk -v cm="$(median "$work/create.wall")" -v clo="$(cmin "$work/create.wall")" -v chi="$(cmax "$work/create.wall")" \
  -v nc="$creates" -v a="$(median "$work/a.wall")" -v b="$(median "$work/b.wall")" -v c="$(median "$work/c.wall")" \
  -v n="$reps" -v ray="$("$venv/bin/ray" --version | awk '{print $NF}')" 'BEGIN {
  printf "Ray %s on an emulated v5p-16 (2 hosts, network namespaces; emulator --op-latency 300ms)\n", ray
  printf "tpu-vm create --ray until 2/2 hosts ready (median of %d): %.1f s (%.1f-%.1f s)\n", nc, cm / 1e6, clo / 1e6, chi / 1e6
  printf "50 MB --working-dir, whole command wall time (median of %d, interleaved):\n", n
  printf "  (a) tputrain job submit --tpu-vm (in-process IAP tunnel)         %7.2f s\n", a / 1e6
  printf "  (b) tputrain job submit --address, gcloud start-iap-tunnel       %7.2f s\n", b / 1e6
  printf "  (c) ray job submit --address, the same gcloud tunnel             %7.2f s\n", c / 1e6
  printf "  (a)/(b) %.2fx   (b)/(c) %.2fx   (a)/(c) %.2fx\n", a / b, b / c, a / c
}'
