# shellcheck shell=bash
# A model server behind kube-apiserver's service proxy, for the benches that send it requests
# (bench/serve.sh, bench/commands.sh). Source it, then call serve_peer_start ENGINE (jetstream
# or vllm); serve_peer_cleanup (from an EXIT trap) stops everything it started.
# The server is the real JetStream (MaxText 0.2.5's engine, a tiny random-weight model on CPU,
# behind the upstream jetstream-http) or a SIMULATOR of vLLM's OpenAI API (llm-d-inference-sim in
# echo mode, scripts/peers/vllm-sim.sh; real vLLM does not install on CPU machines), in a network
# namespace playing the pod; etcd and kube-apiserver run on free loopback ports
# (scripts/peers/k8s.sh), with a throwaway CA and a token; a Service (ClusterIP, port 8000, no
# selector), and the Pod and Endpoints the controllers would make, point at the server. As the
# tests run them: tests/k8s/apiserver_fixture.cc, tests/k8s/netns_jetstream.cc,
# tests/k8s/netns_vllm_sim.cc. Needs root (ip netns). JetStream takes 30-50 s to start (the
# simulator 1 s).
# The simulator answers after peer_vllm_ttft (default 50ms), then a token each peer_vllm_itl (10ms).
# After serve_peer_start: $peer_server (the API server's URL), $peer_token, $peer_ca (its CA
# file), $peer_kubeconfig, $peer_ns, $peer_svc, $peer_pod_ip, $peer_work (a temp dir).

peer_cache=${TPUTRAIN_TEST_CACHE:-$HOME/.cache/tputrain-test}
peer_shared=${TPUTRAIN_SHARED_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/shared}
peer_pids=()
peer_work=
peer_netns=
peer_host_veth=

peer_fail() { echo "${peer_name:-bench}: $*" >&2; exit 2; }

# The tools and peers ENGINE needs, checked before anything starts.
serve_peer_check() {
  local engine=$1 tool
  [ "$(id -u)" = 0 ] || peer_fail "needs root (ip netns: the pod's network namespace)"
  for tool in ip curl openssl python3 setpriv base64; do
    command -v "$tool" >/dev/null || peer_fail "$tool is not installed"
  done
  [ -x "$peer_cache/k8s/etcd" ] && [ -x "$peer_cache/k8s/kube-apiserver" ] ||
    peer_fail "no etcd/kube-apiserver in $peer_cache/k8s (run scripts/peers/k8s.sh)"
  case $engine in
    jetstream)
      [ -f "$peer_cache/maxtext/.jetstream-stamp" ] && [ -x "$peer_cache/jetstream-http/bin/uvicorn" ] ||
        peer_fail "no JetStream peer in $peer_cache (run scripts/peers/jetstream.sh)"
      [ -f "$peer_shared/peers/jetstream-http/http_server.py" ] ||
        peer_fail "no $peer_shared/peers/jetstream-http/http_server.py (../shared beside the checkout)" ;;
    vllm)
      [ -x "$peer_cache/vllm-sim/llm-d-inference-sim" ] ||
        peer_fail "no vLLM simulator in $peer_cache (run scripts/peers/vllm-sim.sh)" ;;
    *) peer_fail "ENGINE must be jetstream or vllm, not '$engine'" ;;
  esac
}

peer_ns_pids() { [ -z "$peer_netns" ] || ip netns pids "$peer_netns" 2>/dev/null || true; }
peer_stop_pids() {  # TERM, a bounded wait, then KILL
  local left tries=0
  [ $# -gt 0 ] || return 0
  kill "$@" 2>/dev/null || true
  while left=$(ps -o pid= -p "$(IFS=,; echo "$*")" 2>/dev/null) && [ -n "$left" ] && [ $tries -lt 50 ]; do
    sleep 0.2
    tries=$((tries + 1))
  done
  [ -z "${left:-}" ] || kill -9 $left 2>/dev/null || true
}
# Every process by its PID, the namespace, the veth, the temp dir.
serve_peer_cleanup() {
  # shellcheck disable=SC2046  # one PID per word
  peer_stop_pids "${peer_pids[@]}" $(peer_ns_pids)
  [ -z "$peer_netns" ] || ip netns del "$peer_netns" 2>/dev/null || true
  [ -z "$peer_host_veth" ] || ip link del "$peer_host_veth" 2>/dev/null || true  # gone with the namespace
  [ -z "$peer_work" ] || rm -rf "$peer_work"
}

peer_free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# Waits up to $1 seconds for "${@:2}" to succeed.
peer_wait_for() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.5
  done
}

peer_api() {  # METHOD PATH [BODY [CONTENT-TYPE]]: the response body on stdout; fails on an error status
  local args=(-sS --fail-with-body --cacert "$peer_ca" -H "Authorization: Bearer $peer_token" -X "$1")
  [ $# -lt 3 ] || args+=(-H "Content-Type: ${4:-application/json}" --data-binary "$3")
  curl "${args[@]}" "$peer_server$2"
}

serve_peer_start() {
  local engine=$1
  serve_peer_check "$engine"
  peer_work=$(mktemp -d /tmp/trbench-serve-XXXXXX)
  peer_netns=trbs-$$
  peer_host_veth=trbsh$$
  # --- the pod: a network namespace joined by a veth /30, the server inside -----------------------
  local id=$(($$ % 16000))
  local prefix=10.245.$((id / 64))
  local host_ip=$prefix.$((id % 64 * 4 + 1))
  peer_pod_ip=$prefix.$((id % 64 * 4 + 2))
  ip netns add "$peer_netns"
  ip link add "$peer_host_veth" type veth peer name "trbsn$$"
  ip link set "trbsn$$" netns "$peer_netns"
  ip addr add "$host_ip/30" dev "$peer_host_veth"
  ip link set "$peer_host_veth" up
  ip netns exec "$peer_netns" ip addr add "$peer_pod_ip/30" dev "trbsn$$"
  ip netns exec "$peer_netns" ip link set "trbsn$$" up
  ip netns exec "$peer_netns" ip link set lo up

  if [ "$engine" = vllm ]; then
    # As the tests run it (tests/k8s/netns_vllm_sim.cc): echo mode, a stream token by token.
    (cd "$peer_work" && exec ip netns exec "$peer_netns" setpriv --pdeathsig KILL -- \
      "$peer_cache/vllm-sim/llm-d-inference-sim" --model tiny-test --port 8000 --mode echo \
      --time-to-first-token "${peer_vllm_ttft:-50ms}" --inter-token-latency "${peer_vllm_itl:-10ms}" \
      --max-model-len 256 --seed 7) \
      >"$peer_work/engine.log" 2>&1 &
    peer_pids+=($!)
  else
    local venv=$peer_cache/maxtext
    local maxtext=$venv/lib/python3.12/site-packages/maxtext
    # The tests' tiny model (tests/k8s/netns_jetstream.cc): same prompt, same text, every time.
    (cd "$peer_work" && exec env JAX_PLATFORMS=cpu LOG_LEVEL=INFO PYTHONDONTWRITEBYTECODE=1 \
      ip netns exec "$peer_netns" setpriv --pdeathsig KILL -- "$venv/bin/python" \
      -m maxtext.inference.maxengine.maxengine_server "$maxtext/configs/base.yml" \
      run_name=serve "base_output_directory=$peer_work/out" "tokenizer_path=$maxtext/assets/tokenizers/tokenizer.llama2" \
      vocab_size=32000 base_emb_dim=64 base_num_query_heads=2 base_num_kv_heads=2 base_mlp_dim=128 \
      base_num_decoder_layers=2 head_dim=32 per_device_batch_size=1 max_prefill_predict_length=16 \
      max_target_length=48 hardware=cpu skip_jax_distributed_system=true enable_checkpointing=false \
      "jax_cache_dir=$peer_work/jax_cache" enable_model_warmup=true) >"$peer_work/engine.log" 2>&1 &
    peer_pids+=($!)
    (cd "$peer_shared/peers/jetstream-http" && exec env PYTHONDONTWRITEBYTECODE=1 ip netns exec "$peer_netns" \
      setpriv --pdeathsig KILL -- "$peer_cache/jetstream-http/bin/uvicorn" http_server:app --host=0.0.0.0 --port=8000) \
      >"$peer_work/http.log" 2>&1 &
    peer_pids+=($!)
  fi

  # --- the API server: a throwaway CA, its certificate for 127.0.0.1, a token for the admin ------
  (
    cd "$peer_work"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 1 -subj /CN=bench-ca
    openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj /CN=kube-apiserver
    echo "subjectAltName=IP:127.0.0.1" >server.ext
    openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 1 \
      -extfile server.ext
    openssl genrsa -out sa.key 2048
    openssl rsa -in sa.key -pubout -out sa.pub
  ) >"$peer_work/openssl.log" 2>&1 || { cat "$peer_work/openssl.log" >&2; exit 1; }
  peer_ca=$peer_work/ca.crt
  peer_token=bench-$(openssl rand -hex 16)
  echo "$peer_token,bench-admin,uid-bench,\"system:masters\"" >"$peer_work/tokens.csv"
  local etcd_port peer_port api_port
  etcd_port=$(peer_free_port) peer_port=$(peer_free_port) api_port=$(peer_free_port)
  setpriv --pdeathsig KILL -- "$peer_cache/k8s/etcd" --data-dir "$peer_work/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "default=http://127.0.0.1:$peer_port" --log-level error >"$peer_work/etcd.log" 2>&1 &
  peer_pids+=($!)
  setpriv --pdeathsig KILL -- "$peer_cache/k8s/kube-apiserver" --etcd-servers="http://127.0.0.1:$etcd_port" \
    --bind-address=127.0.0.1 --secure-port="$api_port" --advertise-address=127.0.0.1 \
    --endpoint-reconciler-type=none --tls-cert-file="$peer_work/server.crt" --tls-private-key-file="$peer_work/server.key" \
    --client-ca-file="$peer_ca" --token-auth-file="$peer_work/tokens.csv" --authorization-mode=RBAC \
    --service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$peer_work/sa.pub" \
    --service-account-signing-key-file="$peer_work/sa.key" --service-cluster-ip-range=10.96.0.0/16 \
    --cert-dir="$peer_work/certs" --profiling=false >"$peer_work/apiserver.log" 2>&1 &
  peer_pids+=($!)
  peer_server=https://127.0.0.1:$api_port
  peer_wait_for 60 peer_api GET /readyz >/dev/null 2>&1 ||
    { tail -20 "$peer_work/apiserver.log" >&2; peer_fail "kube-apiserver did not start"; }

  # What the controllers would have made for seed 002's jetstream-svc and its leader pod, or the
  # vllm template's vllm-service and its pod.
  peer_ns=bench
  local pod port_name container image
  if [ "$engine" = vllm ]; then
    peer_svc=vllm-service pod=vllm-tpu-0 port_name=http container=vllm image=vllm/vllm-tpu:latest
  else
    peer_svc=jetstream-svc pod=jetstream-0 port_name=jetstream-http container=jetstream-http image=jetstream-http:v0.2.3
  fi
  {
    peer_api POST /api/v1/namespaces '{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "'$peer_ns'"}}'
    peer_api POST /api/v1/namespaces/$peer_ns/serviceaccounts \
      '{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}}'
    peer_api POST /api/v1/namespaces/$peer_ns/pods '{"apiVersion": "v1", "kind": "Pod",
      "metadata": {"name": "'$pod'", "labels": {"app": "'$pod'"}},
      "spec": {"containers": [{"name": "'$container'", "image": "'$image'"}]}}'
    peer_api PATCH /api/v1/namespaces/$peer_ns/pods/$pod/status '{"status": {"phase": "Running",
      "podIP": "'$peer_pod_ip'", "podIPs": [{"ip": "'$peer_pod_ip'"}], "conditions": [{"type": "Ready", "status": "True"}]}}' \
      application/merge-patch+json
    peer_api POST /api/v1/namespaces/$peer_ns/services '{"apiVersion": "v1", "kind": "Service",
      "metadata": {"name": "'$peer_svc'"},
      "spec": {"type": "ClusterIP", "ports": [{"name": "'$port_name'", "port": 8000, "targetPort": 8000}]}}'
    # The proxy only dials addresses that are a Pod's (targetRef), on the port named as the Service's.
    peer_api POST /api/v1/namespaces/$peer_ns/endpoints '{"apiVersion": "v1", "kind": "Endpoints",
      "metadata": {"name": "'$peer_svc'"}, "subsets": [{"addresses": [{"ip": "'$peer_pod_ip'",
      "targetRef": {"kind": "Pod", "name": "'$pod'", "namespace": "'$peer_ns'"}}],
      "ports": [{"name": "'$port_name'", "port": 8000}]}]}'
  } >/dev/null
  peer_kubeconfig=$peer_work/kubeconfig
  cat >"$peer_kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: bench
  cluster:
    server: $peer_server
    certificate-authority-data: $(base64 -w0 "$peer_ca")
contexts:
- name: bench
  context: {cluster: bench, user: bench, namespace: $peer_ns}
current-context: bench
users:
- name: bench
  user: {token: $peer_token}
KUBECONFIG

  [ "$engine" = vllm ] || echo "waiting for JetStream to load (30-50 s)..." >&2
  # jetstream-http answers /healthcheck 500 until the engine's gRPC port is up, as the pod's probe
  # sees; the simulator its /health/ready 503 until it has "loaded".
  peer_health=/healthcheck
  [ "$engine" = jetstream ] || peer_health=/health/ready
  peer_wait_for 300 peer_engine_up ||
    { tail -20 "$peer_work/engine.log" >&2; peer_fail "$engine did not become healthy in 5 minutes"; }
}

peer_engine_up() {
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://$peer_pod_ip:8000$peer_health")" != 200 ] || return 0
  kill -0 "${peer_pids[0]}" 2>/dev/null || { tail -20 "$peer_work/engine.log" >&2; peer_fail "the model server exited"; }
  return 1
}
