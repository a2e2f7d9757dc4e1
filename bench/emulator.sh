#!/usr/bin/env bash
# The emulator's start-up time (launch until its admin endpoint answers) and requests per
# second for reads gcloud repeats (cluster GET, operation GET, bucket GET) and for creates, over
# keep-alive connections: one curl process with many URLs, sequentially and 8 at a time.
# Uses wrk instead when it is installed (it is in Debian: apt-get install wrk).
# Usage: bench/emulator.sh [REQUESTS]   (TPUTRAIN=path/to/tputrain to pick a binary)
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${1:-5000}
tputrain=${TPUTRAIN:-build/tputrain}
[ -x "$tputrain" ] || { echo "bench/emulator.sh: $tputrain not built (run scripts/build.sh)" >&2; exit 2; }
command -v curl >/dev/null || { echo "bench/emulator.sh: curl not installed" >&2; exit 2; }

work=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
       echo 18780)
base=http://127.0.0.1:$port
auth='Authorization: Bearer bench-token'

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }

# Start-up: launch to first answer, 11 times.
for ((i = 0; i < 11; i++)); do
  start=$(date +%s%N)
  "$tputrain" emulator start --port "$port" --op-latency 0 >/dev/null 2>&1 &
  pid=$!
  until curl -sf -o /dev/null "$base/_emulator/state"; do :; done
  end=$(date +%s%N)
  echo $(((end - start) / 1000)) >>"$work/startup"
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
done
awk -v t="$(median <"$work/startup")" 'BEGIN {printf "start-up (launch to first answer): median %.1f ms (11 runs)\n", t / 1000}'

"$tputrain" emulator start --port "$port" --op-latency 0 >/dev/null 2>&1 &
pid=$!
until curl -sf -o /dev/null "$base/_emulator/state"; do :; done
op=$(curl -sf -H "$auth" -d '{"cluster": {"name": "bench"}}' "$base/v1/projects/p/locations/us-east5-b/clusters" |
     sed -n 's/.*"name": "\(operation-[^"]*\)".*/\1/p')
curl -sf -o /dev/null -H "$auth" -d '{"name": "bench-bucket"}' "$base/storage/v1/b?project=p"

# Writes a curl config that sends REQUESTS requests cycling over the given paths.
curl_config() {
  local file=$1; shift
  local paths=("$@") n=${#paths[@]}
  { echo "header = \"$auth\""; echo "silent"
    for ((k = 0; k < requests; k++)); do echo "url = \"$base${paths[k % n]}\""; echo "output = /dev/null"; done
  } >"$file"
}

rate() {  # label, curl args...
  local label=$1; shift
  local start end
  start=$(date +%s%N)
  curl -s --no-progress-meter "$@"
  end=$(date +%s%N)
  awk -v n="$requests" -v ns=$((end - start)) -v l="$label" 'BEGIN {printf "%-44s %7.0f requests/s (%d requests)\n", l, n / (ns / 1e9), n}'
}

reads=(/v1/projects/p/locations/us-east5-b/clusters/bench "/v1/projects/p/locations/us-east5-b/operations/$op"
       /storage/v1/b/bench-bucket /v1/projects/p/services/container.googleapis.com)
if command -v wrk >/dev/null; then
  wrk -t2 -c8 -d5s -H "$auth" "$base${reads[0]}"
else
  curl_config "$work/reads" "${reads[@]}"
  rate "reads, 1 connection (curl keep-alive):" -K "$work/reads"
  rate "reads, 8 at a time (curl --parallel):" --parallel --parallel-max 8 -K "$work/reads"
fi
# Creates: distinct service accounts, each a schema-validated POST (no --state-file: no disk writes).
# `next` starts a new request group: without it curl would join every body into one.
for ((k = 0; k < requests; k++)); do
  ((k > 0)) && echo "next"
  echo "url = \"$base/v1/projects/p/serviceAccounts\""; echo "header = \"$auth\""; echo "output = /dev/null"
  echo "data = \"{\\\"accountId\\\": \\\"bench-sa-$k\\\"}\""
done >"$work/creates"
rate "creates (service accounts), 1 connection:" -K "$work/creates"
count=$(curl -sf "$base/_emulator/state" | grep -c '"email"' || true)
echo "service accounts held afterwards: $count"
