#!/usr/bin/env bash
# `tputrain serve generate` against curl, sending the same request through the same
# kube-apiserver service proxy to the same server, in one run, interleaved. The server is the
# real JetStream, or with ENGINE=vllm a SIMULATOR of vLLM's OpenAI API (llm-d-inference-sim in
# echo mode, scripts/peers/vllm-sim.sh; real vLLM does not install on CPU machines) answering
# /v1/completions:
#  1. a whole answer: the wall time of the whole command (process start to exit), medians and
#     their ratio;
#  2. streamed ("stream": true): time to first token, tputrain's own (`serve generate --stream
#     --format json` reports time_to_first_token_s) next to curl's time_starttransfer (`-w`),
#     and the arrival of curl's first body bytes (its --trace-time trace). time_starttransfer
#     is the first byte of the response, headers included, and jetstream-http sends its
#     headers before the first token: the body's first bytes are that token.
# The peers are the tests' (tests/k8s/apiserver_fixture.cc, tests/k8s/netns_jetstream.cc): etcd and
# kube-apiserver on free loopback ports (scripts/peers/k8s.sh), MaxText 0.2.5's
# JetStream engine with a tiny random-weight model plus the upstream jetstream-http, both in a
# network namespace playing the pod (scripts/peers/jetstream.sh); a Service (ClusterIP, port 8000,
# no selector), and the Pod and Endpoints the controllers would make, point at it. Needs root
# (ip netns). The engine takes 30-50 s to start (the simulator 1 s). Everything is removed on
# exit, Ctrl-C too.
# Usage: bench/serve.sh [REPETITIONS]   (default 11; TPUTRAIN=path/to/tputrain, MAX_TOKENS=20,
#                                        ENGINE=jetstream|vllm)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-11}
max_tokens=${MAX_TOKENS:-20}
engine=${ENGINE:-jetstream}
tputrain=$(realpath "${TPUTRAIN:-build/tputrain}")
cache=${TPUTRAIN_TEST_CACHE:-$HOME/.cache/tputrain-test}
shared=${TPUTRAIN_SHARED_DIR:-$(cd .. && pwd)/shared}
engine_venv=$cache/maxtext
http_venv=$cache/jetstream-http
http_server_dir=$shared/peers/jetstream-http
fail() { echo "bench/serve.sh: $*" >&2; exit 2; }
[ -x "$tputrain" ] || fail "$tputrain not built (run scripts/build.sh)"
[ "$(id -u)" = 0 ] || fail "needs root (ip netns: the pod's network namespace)"
for tool in ip curl openssl python3 setpriv base64; do
  command -v "$tool" >/dev/null || fail "$tool is not installed"
done
[ -x "$cache/k8s/etcd" ] && [ -x "$cache/k8s/kube-apiserver" ] ||
  fail "no etcd/kube-apiserver in $cache/k8s (run scripts/peers/k8s.sh)"
vllm_sim=$cache/vllm-sim/llm-d-inference-sim
case $engine in
  jetstream)
    [ -f "$engine_venv/.jetstream-stamp" ] && [ -x "$http_venv/bin/uvicorn" ] ||
      fail "no JetStream peer in $cache (run scripts/peers/jetstream.sh)"
    [ -f "$http_server_dir/http_server.py" ] || fail "no $http_server_dir/http_server.py (../shared beside the checkout)" ;;
  vllm) [ -x "$vllm_sim" ] || fail "no vLLM simulator in $cache (run scripts/peers/vllm-sim.sh)" ;;
  *) fail "ENGINE must be jetstream or vllm, not '$engine'" ;;
esac
[[ $reps =~ ^[1-9][0-9]*$ ]] || fail "REPETITIONS must be a positive count, not '$reps'"
[[ $max_tokens =~ ^[1-9][0-9]*$ ]] || fail "MAX_TOKENS must be a positive count, not '$max_tokens'"

# --- clean-up: every process by its PID, the namespace, the veth, the temp dir -------------------
work=$(mktemp -d /tmp/trbench-serve-XXXXXX)
netns=trbs-$$
host_veth=trbsh$$
pids=()
ns_pids() { ip netns pids "$netns" 2>/dev/null || true; }
stop_pids() {  # TERM, a bounded wait, then KILL
  local left tries=0
  [ $# -gt 0 ] || return 0
  kill "$@" 2>/dev/null || true
  while left=$(ps -o pid= -p "$(IFS=,; echo "$*")" 2>/dev/null) && [ -n "$left" ] && [ $tries -lt 50 ]; do
    sleep 0.2
    tries=$((tries + 1))
  done
  [ -z "${left:-}" ] || kill -9 $left 2>/dev/null || true
}
cleanup() {
  trap - EXIT INT TERM
  # shellcheck disable=SC2046  # one PID per word
  stop_pids "${pids[@]}" $(ns_pids)
  ip netns del "$netns" 2>/dev/null || true
  ip link del "$host_veth" 2>/dev/null || true  # gone with the namespace's end; this is in case
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# Waits up to $1 seconds for "${@:2}" to succeed.
wait_for() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.5
  done
}

# --- the pod: a network namespace joined by a veth /30, JetStream inside ---------------------------
id=$(($$ % 16000))
prefix=10.245.$((id / 64))
host_ip=$prefix.$((id % 64 * 4 + 1))
pod_ip=$prefix.$((id % 64 * 4 + 2))
ip netns add "$netns"
ip link add "$host_veth" type veth peer name "trbsn$$"
ip link set "trbsn$$" netns "$netns"
ip addr add "$host_ip/30" dev "$host_veth"
ip link set "$host_veth" up
ip netns exec "$netns" ip addr add "$pod_ip/30" dev "trbsn$$"
ip netns exec "$netns" ip link set "trbsn$$" up
ip netns exec "$netns" ip link set lo up

if [ "$engine" = vllm ]; then
  # As the tests run it (tests/k8s/netns_vllm_sim.cc): echo mode, a stream token by token.
  (cd "$work" && exec ip netns exec "$netns" setpriv --pdeathsig KILL -- "$vllm_sim" --model tiny-test \
    --port 8000 --mode echo --time-to-first-token 50ms --inter-token-latency 10ms --max-model-len 256 --seed 7) \
    >"$work/engine.log" 2>&1 &
  pids+=($!)
else
maxtext=$engine_venv/lib/python3.12/site-packages/maxtext
# The tests' tiny model (tests/k8s/netns_jetstream.cc): same prompt, same text, every time.
(cd "$work" && exec env JAX_PLATFORMS=cpu LOG_LEVEL=INFO PYTHONDONTWRITEBYTECODE=1 \
  ip netns exec "$netns" setpriv --pdeathsig KILL -- "$engine_venv/bin/python" \
  -m maxtext.inference.maxengine.maxengine_server "$maxtext/configs/base.yml" \
  run_name=serve "base_output_directory=$work/out" "tokenizer_path=$maxtext/assets/tokenizers/tokenizer.llama2" \
  vocab_size=32000 base_emb_dim=64 base_num_query_heads=2 base_num_kv_heads=2 base_mlp_dim=128 \
  base_num_decoder_layers=2 head_dim=32 per_device_batch_size=1 max_prefill_predict_length=16 \
  max_target_length=48 hardware=cpu skip_jax_distributed_system=true enable_checkpointing=false \
  "jax_cache_dir=$work/jax_cache" enable_model_warmup=true) >"$work/engine.log" 2>&1 &
pids+=($!)
(cd "$http_server_dir" && exec env PYTHONDONTWRITEBYTECODE=1 ip netns exec "$netns" \
  setpriv --pdeathsig KILL -- "$http_venv/bin/uvicorn" http_server:app --host=0.0.0.0 --port=8000) \
  >"$work/http.log" 2>&1 &
pids+=($!)
fi

# --- the API server: a throwaway CA, its certificate for 127.0.0.1, a token for the admin --------
(
  cd "$work"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 1 -subj /CN=bench-ca
  openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj /CN=kube-apiserver
  echo "subjectAltName=IP:127.0.0.1" >server.ext
  openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 1 \
    -extfile server.ext
  openssl genrsa -out sa.key 2048
  openssl rsa -in sa.key -pubout -out sa.pub
) >"$work/openssl.log" 2>&1 || { cat "$work/openssl.log" >&2; exit 1; }
token=bench-$(openssl rand -hex 16)
echo "$token,bench-admin,uid-bench,\"system:masters\"" >"$work/tokens.csv"
etcd_port=$(free_port) peer_port=$(free_port) api_port=$(free_port)
setpriv --pdeathsig KILL -- "$cache/k8s/etcd" --data-dir "$work/etcd" \
  --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
  --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
  --initial-cluster "default=http://127.0.0.1:$peer_port" --log-level error >"$work/etcd.log" 2>&1 &
pids+=($!)
setpriv --pdeathsig KILL -- "$cache/k8s/kube-apiserver" --etcd-servers="http://127.0.0.1:$etcd_port" \
  --bind-address=127.0.0.1 --secure-port="$api_port" --advertise-address=127.0.0.1 \
  --endpoint-reconciler-type=none --tls-cert-file="$work/server.crt" --tls-private-key-file="$work/server.key" \
  --client-ca-file="$work/ca.crt" --token-auth-file="$work/tokens.csv" --authorization-mode=RBAC \
  --service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$work/sa.pub" \
  --service-account-signing-key-file="$work/sa.key" --service-cluster-ip-range=10.96.0.0/16 \
  --cert-dir="$work/certs" --profiling=false >"$work/apiserver.log" 2>&1 &
pids+=($!)
server=https://127.0.0.1:$api_port
api() {  # api METHOD PATH [BODY [CONTENT-TYPE]]: the response body on stdout; fails on an error status
  local args=(-sS --fail-with-body --cacert "$work/ca.crt" -H "Authorization: Bearer $token" -X "$1")
  [ $# -lt 3 ] || args+=(-H "Content-Type: ${4:-application/json}" --data-binary "$3")
  curl "${args[@]}" "$server$2"
}
wait_for 60 api GET /readyz >/dev/null 2>&1 || { tail -20 "$work/apiserver.log" >&2; fail "kube-apiserver did not start"; }

# What the controllers would have made for seed 002's jetstream-svc and its leader pod, or the
# vllm template's vllm-service and its pod.
ns=bench
if [ "$engine" = vllm ]; then
  svc=vllm-service pod=vllm-tpu-0 port_name=http container=vllm image=vllm/vllm-tpu:latest
else
  svc=jetstream-svc pod=jetstream-0 port_name=jetstream-http container=jetstream-http image=jetstream-http:v0.2.3
fi
{
  api POST /api/v1/namespaces '{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "'$ns'"}}'
  api POST /api/v1/namespaces/$ns/serviceaccounts \
    '{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}}'
  api POST /api/v1/namespaces/$ns/pods '{"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "'$pod'", "labels": {"app": "'$pod'"}},
    "spec": {"containers": [{"name": "'$container'", "image": "'$image'"}]}}'
  api PATCH /api/v1/namespaces/$ns/pods/$pod/status '{"status": {"phase": "Running",
    "podIP": "'$pod_ip'", "podIPs": [{"ip": "'$pod_ip'"}], "conditions": [{"type": "Ready", "status": "True"}]}}' \
    application/merge-patch+json
  api POST /api/v1/namespaces/$ns/services '{"apiVersion": "v1", "kind": "Service",
    "metadata": {"name": "'$svc'"},
    "spec": {"type": "ClusterIP", "ports": [{"name": "'$port_name'", "port": 8000, "targetPort": 8000}]}}'
  # The proxy only dials addresses that are a Pod's (targetRef), on the port named as the Service's.
  api POST /api/v1/namespaces/$ns/endpoints '{"apiVersion": "v1", "kind": "Endpoints",
    "metadata": {"name": "'$svc'"}, "subsets": [{"addresses": [{"ip": "'$pod_ip'",
    "targetRef": {"kind": "Pod", "name": "'$pod'", "namespace": "'$ns'"}}],
    "ports": [{"name": "'$port_name'", "port": 8000}]}]}'
} >/dev/null
cat >"$work/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: bench
  cluster:
    server: $server
    certificate-authority-data: $(base64 -w0 "$work/ca.crt")
contexts:
- name: bench
  context: {cluster: bench, user: bench, namespace: $ns}
current-context: bench
users:
- name: bench
  user: {token: $token}
EOF

[ "$engine" = vllm ] || echo "waiting for JetStream to load (30-50 s)..." >&2
# jetstream-http answers /healthcheck 500 until the engine's gRPC port is up, as the pod's probe
# sees; the simulator its /health/ready 503 until it has "loaded".
health=/healthcheck
[ "$engine" = jetstream ] || health=/health/ready
engine_up() {
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://$pod_ip:8000$health")" != 200 ] || return 0
  kill -0 "${pids[0]}" 2>/dev/null || { tail -20 "$work/engine.log" >&2; fail "the JetStream engine exited"; }
  return 1
}
wait_for 300 engine_up || { tail -20 "$work/engine.log" >&2; fail "$engine did not become healthy in 5 minutes"; }

# --- the same request, both ways ---------------------------------------------------------------
prompt="What are the top 5 programming languages"
body='{"prompt": "'$prompt'", "max_tokens": '$max_tokens'}'
stream_body='{"prompt": "'$prompt'", "max_tokens": '$max_tokens', "stream": true}'
url=$server/api/v1/namespaces/$ns/services/jetstream-svc:8000/proxy/generate
engine_flags=()
text_of='print(json.load(sys.stdin)["response"])'
if [ "$engine" = vllm ]; then
  # The model named, as tputrain sends it with --model (without, it first asks /v1/models); the
  # stream asks for the usage chunk, as tputrain --stream does.
  body='{"prompt": "'$prompt'", "max_tokens": '$max_tokens', "model": "tiny-test"}'
  stream_body='{"prompt": "'$prompt'", "max_tokens": '$max_tokens', "model": "tiny-test", "stream": true,
    "stream_options": {"include_usage": true}}'
  url=$server/api/v1/namespaces/$ns/services/vllm-service:8000/proxy/v1/completions
  engine_flags=(--engine vllm --model tiny-test)
  text_of='print(json.load(sys.stdin)["choices"][0]["text"])'
fi
ask_tputrain() {
  "$tputrain" serve generate "${engine_flags[@]}" --kubeconfig "$work/kubeconfig" --prompt "$prompt" \
    --max-tokens "$max_tokens" "$@"
}
ask_curl() {
  curl -sS --fail-with-body --cacert "$work/ca.crt" -H "Authorization: Bearer $token" \
    -H "Content-Type: application/json" --data-binary "$@" "$url"
}

# Warm both up, and check that they get the same answer.
t_text=$(ask_tputrain)
c_text=$(ask_curl "$body" | python3 -c "import json, sys; $text_of")
[ "$t_text" = "$c_text" ] || fail "tputrain and curl got different answers: '$t_text' / '$c_text'"
ask_tputrain --stream >/dev/null
ask_curl "$stream_body" -N >/dev/null

# Microseconds from bash's own clock (no fork of date around a ~100 ms command).
for ((i = 0; i < reps; i++)); do
  start=${EPOCHREALTIME/[.,]/}; ask_tputrain >/dev/null; echo $((${EPOCHREALTIME/[.,]/} - start)) >>"$work/t.wall"
  start=${EPOCHREALTIME/[.,]/}; ask_curl "$body" >/dev/null; echo $((${EPOCHREALTIME/[.,]/} - start)) >>"$work/c.wall"
  # tputrain reports whole milliseconds.
  ask_tputrain --stream --format json |
    python3 -c 'import json, sys; print(round(json.load(sys.stdin)["time_to_first_token_s"] * 1e6))' >>"$work/t.ttft"
  ask_curl "$stream_body" -N -o /dev/null -w '%{time_starttransfer}\n' --trace-time --trace-ascii "$work/trace" |
    awk '{printf "%d\n", $1 * 1e6}' >>"$work/c.ttft"
  # The first body bytes, the first token, from curl's own trace: its first line is the start.
  awk '{split($1, t, ":"); at = (t[1] * 3600 + t[2] * 60 + t[3]) * 1e6}
       NR == 1 {start = at} /<= Recv data/ {printf "%d\n", at - start; exit}' "$work/trace" >>"$work/c.body"
done

median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
awk -v tw="$(median "$work/t.wall")" -v cw="$(median "$work/c.wall")" -v tt="$(median "$work/t.ttft")" \
  -v ct="$(median "$work/c.ttft")" -v cb="$(median "$work/c.body")" -v n="$reps" -v m="$max_tokens" \
  -v server="$([ "$engine" = vllm ] && echo "the vLLM SIMULATOR (llm-d-inference-sim, echo mode, 50 ms to first token, 10 ms a token)" ||
    echo "JetStream (MaxText 0.2.5, tiny model on CPU)")" 'BEGIN {
  printf "%s behind kube-apiserver'"'"'s service proxy; %d interleaved runs, max_tokens %d\n", server, n, m
  printf "whole answer, wall time of the command (median):\n"
  printf "  tputrain serve generate                                 %7.1f ms\n", tw / 1000
  printf "  curl                                                    %7.1f ms\n", cw / 1000
  printf "  tputrain / curl                                         %7.2fx\n", tw / cw
  printf "streamed, time to first token (median):\n"
  printf "  tputrain serve generate --stream (time_to_first_token)  %7.1f ms\n", tt / 1000
  printf "  curl -N, time_starttransfer (first byte: the headers)   %7.1f ms\n", ct / 1000
  printf "  curl -N, first body byte (--trace-time)                 %7.1f ms\n", cb / 1000
  printf "  tputrain / curl first body byte                         %7.2fx\n", tt / cb
}'
