#!/usr/bin/env bash
# tputrain against the Ray CLI on the same local Ray head, in the same run:
#  1. follow latency: a job prints a timestamped line every 0.25 s; `tputrain job logs --follow`
#     and `ray job logs --follow` run side by side, and the delay from the job's print to each
#     tool's stdout is measured (median and p90). Both are bound by the head's ~1 s tail poll.
#  2. `tputrain job status` against `ray job status`: whole-process wall time and peak RSS,
#     medians over REPETITIONS interleaved runs. Goal: tputrain <= 1/40 of the time, < 15 MiB.
# Usage: bench/ray.sh [REPETITIONS]   (TPUTRAIN=path/to/tputrain; the Ray venv comes from
# scripts/peers/ray.sh, in ${TPUTRAIN_TEST_CACHE:-~/.cache/tputrain-test}/ray)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-11}
tputrain=$(realpath "${TPUTRAIN:-build/tputrain}")
venv=${TPUTRAIN_TEST_CACHE:-$HOME/.cache/tputrain-test}/ray
[ -x "$tputrain" ] || { echo "bench/ray.sh: $tputrain not built (run scripts/build.sh)" >&2; exit 2; }
[ -x "$venv/bin/ray" ] || { echo "bench/ray.sh: no Ray venv at $venv (run scripts/peers/ray.sh)" >&2; exit 2; }
export PATH=$venv/bin:$PATH RAY_USAGE_STATS_ENABLED=0 PYTHONUNBUFFERED=1
unset RAY_ADDRESS RAY_API_SERVER_ADDRESS
py=$venv/bin/python

free_port() { "$py" -c 'import socket
while True:
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close()
    if not 10002 <= p <= 19999: print(p); break'; }

tmp=$(mktemp -d /tmp/trbench-XXXXXX)
# The head's processes, by PID: those whose command line names its own temp dir (never
# `ray stop`, which would stop every Ray process of the user).
# "/[t]mp/..." matches the path but not grep's own command line.
head_pids() { grep -las -- "/[t]${tmp#/t}" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3 || true; }
cleanup() {
  local pids tries=0
  pids=$(head_pids)
  [ -n "$pids" ] && kill $pids 2>/dev/null
  while [ -n "$(head_pids)" ] && [ $tries -lt 100 ]; do sleep 0.2; tries=$((tries + 1)); done
  pids=$(head_pids)
  [ -n "$pids" ] && kill -9 $pids 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
dash=$(free_port)
ray start --head --node-ip-address 127.0.0.1 --port "$(free_port)" --dashboard-host 127.0.0.1 \
  --dashboard-port "$dash" --ray-client-server-port "$(free_port)" --dashboard-agent-listen-port "$(free_port)" \
  --min-worker-port 20000 --max-worker-port 20999 --num-cpus 2 --disable-usage-stats --temp-dir "$tmp" >/dev/null
address=http://127.0.0.1:$dash
echo "Ray $(ray --version | awk '{print $NF}') head at $address"

# --- 1. follow latency -------------------------------------------------------------------
lines=40
id=bench-follow-$$
"$tputrain" job submit --address "$address" --no-wait --submission-id "$id" -- python -c "
import time
time.sleep(3)
for i in range($lines):
    print('stamp', repr(time.time()), flush=True)
    time.sleep(0.25)" >/dev/null
# Reads a tool's stdout and writes, per job line, the delay in ms from print to arrival.
stamper='import sys, time
for line in iter(sys.stdin.buffer.readline, b""):
    parts = line.split()
    if len(parts) == 2 and parts[0] == b"stamp":
        print(round((time.time() - float(parts[1])) * 1000, 1), flush=True)'
"$tputrain" job logs --follow "$id" --address "$address" 2>/dev/null | "$py" -c "$stamper" >"$tmp/t.lat" &
t_pid=$!
ray job logs --follow "$id" --address "$address" 2>/dev/null | "$py" -c "$stamper" >"$tmp/r.lat" &
r_pid=$!
wait "$t_pid" "$r_pid" || true
stats() { sort -n "$1" | awk '{a[NR]=$1} END {if (NR == 0) {print "no lines"; exit} printf "median %6.0f ms   p90 %6.0f ms   (%d lines)", a[int((NR+1)/2)], a[int(NR*0.9+0.5)], NR}'; }
echo "follow latency, job print -> tool stdout:"
echo "  tputrain job logs --follow   $(stats "$tmp/t.lat")"
echo "  ray job logs --follow        $(stats "$tmp/r.lat")"

# --- 2. job status: whole-process time and peak RSS ----------------------------------------
measure() {  # prints "wall_ms max_rss_kib" of one run of "$@"
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>&1 || true
  awk '{printf "%d %d\n", $1 * 1000, $2}' "$tmp/time"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
"$tputrain" job status "$id" --address "$address" >/dev/null
ray job status "$id" --address "$address" >/dev/null 2>&1
: >"$tmp/t.st"; : >"$tmp/r.st"
for ((i = 0; i < reps; i++)); do
  measure "$tputrain" job status "$id" --address "$address" >>"$tmp/t.st"
  measure ray job status "$id" --address "$address" >>"$tmp/r.st"
done
# /usr/bin/time has 10 ms resolution: time tputrain over a batch of 20 for its wall time.
start=$(date +%s%N)
for ((k = 0; k < 20 * reps; k++)); do "$tputrain" job status "$id" --address "$address" >/dev/null; done
t_ms=$(awk -v ns=$(($(date +%s%N) - start)) -v n=$((20 * reps)) 'BEGIN {printf "%.1f", ns / 1e6 / n}')
r_ms=$(cut -d' ' -f1 "$tmp/r.st" | median)
t_rss=$(cut -d' ' -f2 "$tmp/t.st" | median)
r_rss=$(cut -d' ' -f2 "$tmp/r.st" | median)
echo "job status (median of $reps, same head, interleaved):"
printf "  tputrain job status   %7.1f ms   %6.1f MiB peak RSS\n" "$t_ms" "$(awk -v k="$t_rss" 'BEGIN {print k / 1024}')"
printf "  ray job status        %7.1f ms   %6.1f MiB peak RSS\n" "$r_ms" "$(awk -v k="$r_rss" 'BEGIN {print k / 1024}')"
awk -v t="$t_ms" -v r="$r_ms" -v m="$t_rss" 'BEGIN {
  printf "  ratio 1/%.0f (goal: at least 1/40); tputrain RSS %s 15 MiB\n", r / t, (m < 15 * 1024) ? "under" : "NOT under" }'
