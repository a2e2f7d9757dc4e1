#!/usr/bin/env bash
# The commands that send requests, each against the tool a user would otherwise run sending the
# same requests to the same local peer, interleaved in one run (the order of each pair swaps from
# one repetition to the next), so that all see the same machine load:
#   cluster list    GET .../locations/ZONE/clusters         the emulator   curl, gcloud
#   tpu-vm list     GET .../locations/ZONE/nodes            the emulator   curl, gcloud
#   job status      GET /api/jobs/ID                        a Ray 2.60 head   curl, ray job status
#   serve generate  POST .../services/vllm-service:8000/proxy/v1/completions through kube-apiserver's
#                   service proxy (TLS, a bearer token) to the vLLM SIMULATOR (llm-d-inference-sim in
#                   echo mode, no added latency: the proxy and the commands are what is timed)   curl
# For each: the median wall time of the whole process (launch to exit) and the ratio of tputrain's
# median to the other's; then each tputrain command's phases (bench/phases.sh): where its time goes
# from launch to exit. curl gets what tputrain sends: the same method, URL, token, Accept and
# Accept-Encoding (curl --compressed) and body. Time to first token of a streamed answer is
# bench/serve.sh's; start-up alone (tputrain --version) bench/startup.sh's.
# A part whose peer is missing is skipped, saying which: the emulator part needs only the build;
# job status scripts/peers/ray.sh; serve generate root (ip netns), scripts/peers/k8s.sh and
# scripts/peers/vllm-sim.sh. gcloud and ray are timed when installed (they take 0.3-3 s a run).
# Usage: bench/commands.sh [REPETITIONS]   (default 21; TPUTRAIN=path/to/tputrain, PARTS="emulator
#        ray serve" to choose, OTHERS=0 to time curl only, BASELINE=path/to/another/tputrain to
#        time an earlier build too, interleaved with the rest: a change's before and after)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-21}
parts=${PARTS:-emulator ray serve}
others=${OTHERS:-1}
baseline=${BASELINE:+$(realpath "$BASELINE")}
tputrain=$(realpath "${TPUTRAIN:-build/tputrain}")
peer_name=bench/commands.sh
# shellcheck source=bench/lib/serve_peer.sh
. bench/lib/serve_peer.sh
[ -x "$tputrain" ] || peer_fail "$tputrain not built (run scripts/build.sh)"
[[ $reps =~ ^[1-9][0-9]*$ ]] || peer_fail "REPETITIONS must be a positive count, not '$reps'"
command -v curl >/dev/null || peer_fail "curl is not installed"
ray_venv=$peer_cache/ray

work=$(mktemp -d /tmp/trbench-commands-XXXXXX)
emulator_pid=
ray_tmp=
# The Ray head's processes, by PID: those whose command line names its own temp dir (never
# `ray stop`, which would stop every Ray process of the user). "/[t]mp/..." matches the path but
# not grep's own command line.
ray_pids() { [ -z "$ray_tmp" ] || grep -las -- "/[t]${ray_tmp#/t}" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3 || true; }
cleanup() {
  trap - EXIT INT TERM
  local pids tries=0
  [ -z "$emulator_pid" ] || { kill "$emulator_pid" 2>/dev/null || true; wait "$emulator_pid" 2>/dev/null || true; }
  pids=$(ray_pids)
  # shellcheck disable=SC2086  # one PID per word
  [ -z "$pids" ] || kill $pids 2>/dev/null || true
  while [ -n "$(ray_pids)" ] && [ $tries -lt 100 ]; do sleep 0.2; tries=$((tries + 1)); done
  pids=$(ray_pids)
  # shellcheck disable=SC2086
  [ -z "$pids" ] || kill -9 $pids 2>/dev/null || true
  [ -z "$ray_tmp" ] || rm -rf "$ray_tmp"
  serve_peer_cleanup
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# What each part adds: a label, the tputrain command, and the others' commands, each a bash
# function name (the function runs the command with its output thrown away).
labels=()
declare -A timed_with
add() {  # add LABEL TPUTRAIN_FUNCTION OTHER_FUNCTION...
  local label=$1
  shift
  labels+=("$label")
  timed_with[$label]="$*"
}
run_quiet() { "$@" >/dev/null 2>&1; }

# --- the emulator: cluster list and tpu-vm list ------------------------------------------------
if [[ " $parts " == *" emulator "* ]]; then
  export XDG_STATE_HOME=$work/state CLOUDSDK_CONFIG=$work/gcloud
  mkdir -p "$CLOUDSDK_CONFIG"
  "$tputrain" emulator start --port 0 --op-latency 0 >"$work/emulator.env" 2>"$work/emulator.log" &
  emulator_pid=$!
  for ((i = 0; i < 100; i++)); do
    grep -q '^export CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE=' "$work/emulator.env" 2>/dev/null && break
    kill -0 "$emulator_pid" 2>/dev/null || break
    sleep 0.1
  done
  grep -q '^export CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE=' "$work/emulator.env" 2>/dev/null ||
    { cat "$work/emulator.log" >&2; peer_fail "the emulator did not start"; }
  # shellcheck disable=SC1091
  . "$work/emulator.env"
  token=bench-token-$$
  echo "$token" >"$work/token"
  export CLOUDSDK_AUTH_ACCESS_TOKEN_FILE=$work/token TPUTRAIN_PROJECT=bench-project TPUTRAIN_RUN=bench
  export CLOUDSDK_CORE_PROJECT=bench-project CLOUDSDK_CORE_DISABLE_PROMPTS=1
  export CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK=1
  zone=us-east5-b
  # Something to list: a cluster with a TPU node pool, and a TPU VM.
  "$tputrain" cluster create bench --location "$zone" --tpu-type v6e-16 --quiet >/dev/null 2>"$work/create.log" ||
    { cat "$work/create.log" >&2; peer_fail "cluster create against the emulator failed"; }
  "$tputrain" tpu-vm create bench-vm --zone "$zone" --accelerator-type v6e-8 --quiet >/dev/null 2>>"$work/create.log" ||
    { cat "$work/create.log" >&2; peer_fail "tpu-vm create against the emulator failed"; }
  base=$TPUTRAIN_EMULATOR_URL
  curl_get() {  # the request tputrain sends: its Accept, a bearer token, every encoding curl decodes
    curl -sS --fail --compressed -H "Authorization: Bearer $token" -H 'Accept: application/json' "$1" -o /dev/null
  }
  t_cluster_list() { run_quiet "$tputrain" cluster list --location "$zone" --format json; }
  c_cluster_list() { curl_get "$base/v1/projects/bench-project/locations/$zone/clusters"; }
  g_cluster_list() { run_quiet gcloud container clusters list --location "$zone" --format json; }
  t_tpu_vm_list() { run_quiet "$tputrain" tpu-vm list --zone "$zone" --format json; }
  c_tpu_vm_list() { curl_get "$base/v2/projects/bench-project/locations/$zone/nodes"; }
  g_tpu_vm_list() { run_quiet gcloud compute tpus tpu-vm list --zone "$zone" --format json; }
  gcloud_too=()
  if [ "$others" = 1 ] && command -v gcloud >/dev/null; then gcloud_too=(g); fi
  add "cluster list" t_cluster_list c_cluster_list "${gcloud_too[@]/%/_cluster_list}"
  add "tpu-vm list" t_tpu_vm_list c_tpu_vm_list "${gcloud_too[@]/%/_tpu_vm_list}"
  phases_of=("cluster list|$tputrain cluster list --location $zone --format json"
             "tpu-vm list|$tputrain tpu-vm list --zone $zone --format json")
fi

# --- a Ray head: job status ----------------------------------------------------------------------
if [[ " $parts " == *" ray "* ]]; then
  if [ ! -x "$ray_venv/bin/ray" ]; then
    echo "job status: skipped (no Ray venv at $ray_venv: scripts/peers/ray.sh)" >&2
  else
    ray_tmp=$(mktemp -d /tmp/trbench-ray-XXXXXX)
    ray_port() { "$ray_venv/bin/python" -c 'import socket
while True:
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close()
    if not 10002 <= p <= 19999: print(p); break'; }
    dash=$(ray_port)
    (unset RAY_ADDRESS RAY_API_SERVER_ADDRESS
     PATH=$ray_venv/bin:$PATH RAY_USAGE_STATS_ENABLED=0 "$ray_venv/bin/ray" start --head --node-ip-address 127.0.0.1 \
       --port "$(ray_port)" --dashboard-host 127.0.0.1 --dashboard-port "$dash" --ray-client-server-port "$(ray_port)" \
       --dashboard-agent-listen-port "$(ray_port)" --min-worker-port 20000 --max-worker-port 20999 --num-cpus 1 \
       --disable-usage-stats --temp-dir "$ray_tmp") >"$work/ray.log" 2>&1 || { tail -20 "$work/ray.log" >&2; peer_fail "ray start failed"; }
    ray_address=http://127.0.0.1:$dash
    job=bench-status-$$
    "$tputrain" job submit --address "$ray_address" --submission-id "$job" -- python -c 'print(42)' >/dev/null 2>"$work/job.log" ||
      { cat "$work/job.log" >&2; peer_fail "job submit to the Ray head failed"; }
    t_job_status() { run_quiet "$tputrain" job status "$job" --address "$ray_address" --format json; }
    c_job_status() { curl -sS --fail --compressed -H 'Accept: application/json' "$ray_address/api/jobs/$job" -o /dev/null; }
    r_job_status() { run_quiet env PATH="$ray_venv/bin:$PATH" "$ray_venv/bin/ray" job status "$job" --address "$ray_address"; }
    ray_too=()
    [ "$others" = 1 ] && ray_too=(r_job_status)
    add "job status" t_job_status c_job_status "${ray_too[@]}"
    phases_of+=("job status|$tputrain job status $job --address $ray_address --format json")
  fi
fi

# --- kube-apiserver's service proxy to the vLLM simulator: serve generate --------------------------
if [[ " $parts " == *" serve "* ]]; then
  if ! (serve_peer_check vllm) 2>"$work/serve-check"; then
    echo "serve generate: skipped ($(sed 's/^[^:]*: //' "$work/serve-check"))" >&2
  else
    peer_vllm_ttft=0s peer_vllm_itl=0s serve_peer_start vllm
    prompt="What are the top 5 programming languages"
    body='{"prompt": "'$prompt'", "max_tokens": 5, "model": "tiny-test"}'
    proxy=$peer_server/api/v1/namespaces/$peer_ns/services/$peer_svc:8000/proxy/v1/completions
    t_serve_generate() {
      run_quiet "$tputrain" serve generate --engine vllm --model tiny-test --kubeconfig "$peer_kubeconfig" \
        --prompt "$prompt" --max-tokens 5
    }
    c_serve_generate() {
      curl -sS --fail --compressed --cacert "$peer_ca" -H "Authorization: Bearer $peer_token" \
        -H 'Accept: application/json' -H 'Content-Type: application/json' --data-binary "$body" "$proxy" -o /dev/null
    }
    add "serve generate" t_serve_generate c_serve_generate
    phases_of+=("serve generate|$tputrain serve generate --engine vllm --model tiny-test --kubeconfig $peer_kubeconfig --prompt hello --max-tokens 5")
  fi
fi
[ ${#labels[@]} -gt 0 ] || peer_fail "nothing to time (PARTS='$parts')"
if [ -n "$baseline" ]; then  # the baseline runs each tputrain command with its own binary
  [ -x "$baseline" ] || peer_fail "BASELINE $baseline is not an executable"
  for label in "${labels[@]}"; do
    read -r -a fns <<<"${timed_with[$label]}"
    eval "b_${fns[0]#t_}() { tputrain=\$baseline ${fns[0]}; }"
    timed_with[$label]+=" b_${fns[0]#t_}"
  done
fi

# --- timing: every command once to warm up (and to fail early), then interleaved -----------------
slug() { echo "${1// /_}"; }
for label in "${labels[@]}"; do
  for fn in ${timed_with[$label]}; do
    $fn || peer_fail "$label: $fn failed"
  done
done
for ((i = 0; i < reps; i++)); do
  for label in "${labels[@]}"; do
    read -r -a fns <<<"${timed_with[$label]}"
    ((i % 2 == 0)) || fns=("${fns[@]:1}" "${fns[0]}")  # B A on odd repetitions
    for fn in "${fns[@]}"; do
      start=${EPOCHREALTIME/[.,]/}
      $fn
      echo $((${EPOCHREALTIME/[.,]/} - start)) >>"$work/$(slug "$label").$fn"
    done
  done
done

median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
name_of() {
  case $1 in
    t_*) echo tputrain ;;
    c_*) echo curl ;;
    g_*) echo gcloud ;;
    r_*) echo "ray job status" ;;
    b_*) echo "baseline" ;;
  esac
}
echo "Whole command, launch to exit: median of $reps interleaved runs (ms), tputrain / other"
for label in "${labels[@]}"; do
  read -r -a fns <<<"${timed_with[$label]}"
  t=$(median "$work/$(slug "$label").${fns[0]}")
  line=$(printf "  %-15s tputrain %7.2f" "$label" "$(awk -v t="$t" 'BEGIN {print t / 1000}')")
  for fn in "${fns[@]:1}"; do
    o=$(median "$work/$(slug "$label").$fn")
    line+=$(awk -v t="$t" -v o="$o" -v n="$(name_of "$fn")" 'BEGIN {printf "   %s %7.2f (%.2fx)", n, o / 1000, t / o}')
    if [[ $fn == b_* ]]; then  # and the baseline against curl
      c=$(median "$work/$(slug "$label").${fns[1]}")
      line+=$(awk -v b="$o" -v c="$c" 'BEGIN {printf " baseline / curl %.2fx", b / c}')
    fi
  done
  echo "$line"
done
uptime | sed 's/^.*load average/load average/'

echo
for entry in "${phases_of[@]}"; do
  label=${entry%%|*}
  echo "Phases of tputrain $label (bench/phases.sh, median of $reps runs):"
  # shellcheck disable=SC2086  # the command's words
  bench/phases.sh -n "$reps" ${entry#*|} | sed 's/^/  /'
  if [ -n "$baseline" ]; then
    echo "Phases of the baseline's $label:"
    command=${entry#*|}
    # shellcheck disable=SC2086
    bench/phases.sh -n "$reps" "$baseline" ${command#"$tputrain "} | sed 's/^/  /'
  fi
done
