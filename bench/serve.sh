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
#     headers before the first token: the body's first bytes are that token. Both count from
#     the request's start inside the process, so a cost moved before it would not show; hence
#  3. streamed, from the launch of each process to the first byte it writes on stdout (the
#     first token as a user sees it), start-up and libraries included on both sides.
# The peers are the tests', set up by bench/lib/serve_peer.sh: etcd and kube-apiserver on free
# loopback ports, the server in a network namespace playing the pod, a Service, Pod and Endpoints
# pointing at it. Needs root (ip netns). The engine takes 30-50 s to start (the simulator 1 s).
# Everything is removed on exit, Ctrl-C too.
# Usage: bench/serve.sh [REPETITIONS]   (default 11; TPUTRAIN=path/to/tputrain, MAX_TOKENS=20,
#                                        ENGINE=jetstream|vllm)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-11}
max_tokens=${MAX_TOKENS:-20}
engine=${ENGINE:-jetstream}
tputrain=$(realpath "${TPUTRAIN:-build/tputrain}")
peer_name=bench/serve.sh
# shellcheck source=bench/lib/serve_peer.sh
. bench/lib/serve_peer.sh
[ -x "$tputrain" ] || peer_fail "$tputrain not built (run scripts/build.sh)"
serve_peer_check "$engine"
[[ $reps =~ ^[1-9][0-9]*$ ]] || peer_fail "REPETITIONS must be a positive count, not '$reps'"
[[ $max_tokens =~ ^[1-9][0-9]*$ ]] || peer_fail "MAX_TOKENS must be a positive count, not '$max_tokens'"
trap 'trap - EXIT INT TERM; serve_peer_cleanup' EXIT
trap 'exit 130' INT TERM
serve_peer_start "$engine"
work=$peer_work
fail() { peer_fail "$@"; }

# --- the same request, both ways ---------------------------------------------------------------
prompt="What are the top 5 programming languages"
body='{"prompt": "'$prompt'", "max_tokens": '$max_tokens'}'
stream_body='{"prompt": "'$prompt'", "max_tokens": '$max_tokens', "stream": true}'
url=$peer_server/api/v1/namespaces/$peer_ns/services/$peer_svc:8000/proxy/generate
engine_flags=()
text_of='print(json.load(sys.stdin)["response"])'
if [ "$engine" = vllm ]; then
  # The model named, as tputrain sends it with --model (without, it first asks /v1/models); the
  # stream asks for the usage chunk, as tputrain --stream does.
  body='{"prompt": "'$prompt'", "max_tokens": '$max_tokens', "model": "tiny-test"}'
  stream_body='{"prompt": "'$prompt'", "max_tokens": '$max_tokens', "model": "tiny-test", "stream": true,
    "stream_options": {"include_usage": true}}'
  url=$peer_server/api/v1/namespaces/$peer_ns/services/$peer_svc:8000/proxy/v1/completions
  engine_flags=(--engine vllm --model tiny-test)
  text_of='print(json.load(sys.stdin)["choices"][0]["text"])'
fi
ask_tputrain() {
  "$tputrain" serve generate "${engine_flags[@]}" --kubeconfig "$peer_kubeconfig" --prompt "$prompt" \
    --max-tokens "$max_tokens" "$@"
}
ask_curl() {
  curl -sS --fail-with-body --cacert "$peer_ca" -H "Authorization: Bearer $peer_token" \
    -H "Content-Type: application/json" --data-binary "$@" "$url"
}

# Warm both up, and check that they get the same answer.
t_text=$(ask_tputrain)
c_text=$(ask_curl "$body" | python3 -c "import json, sys; $text_of")
[ "$t_text" = "$c_text" ] || fail "tputrain and curl got different answers: '$t_text' / '$c_text'"
ask_tputrain --stream >/dev/null
ask_curl "$stream_body" -N >/dev/null

# Microseconds from the launch of "$@" to the first byte it writes on stdout: the first token
# as the user sees it, with the process's start-up, libraries and set-up counted on both sides.
launch_to_first_byte() {
  local start=${EPOCHREALTIME/[.,]/}
  "$@" 2>/dev/null | { IFS= read -r -N 1 _ && echo $((${EPOCHREALTIME/[.,]/} - start)); cat >/dev/null; }
}

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
  launch_to_first_byte ask_tputrain --stream >>"$work/t.launch"
  launch_to_first_byte ask_curl "$stream_body" -N >>"$work/c.launch"
done

median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
awk -v tw="$(median "$work/t.wall")" -v cw="$(median "$work/c.wall")" -v tt="$(median "$work/t.ttft")" \
  -v ct="$(median "$work/c.ttft")" -v cb="$(median "$work/c.body")" -v n="$reps" -v m="$max_tokens" \
  -v tl="$(median "$work/t.launch")" -v cl="$(median "$work/c.launch")" \
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
  printf "streamed, from the launch of the process to its first byte on stdout (median):\n"
  printf "  tputrain serve generate --stream                        %7.1f ms\n", tl / 1000
  printf "  curl -N                                                 %7.1f ms\n", cl / 1000
  printf "  tputrain / curl                                         %7.2fx\n", tl / cl
}'
