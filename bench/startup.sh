#!/usr/bin/env bash
# Start-up time: `tputrain --version` against `gcloud --version`, interleaved in the same run so
# both see the same machine load. Prints each median and the ratio (goal: under 1/100).
# Usage: bench/startup.sh [REPETITIONS]   (TPUTRAIN=path/to/tputrain to pick a binary)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-21}
tputrain=${TPUTRAIN:-build/tputrain}
[ -x "$tputrain" ] || { echo "bench/startup.sh: $tputrain not built (run scripts/build.sh)" >&2; exit 2; }
command -v gcloud >/dev/null || { echo "bench/startup.sh: gcloud not installed" >&2; exit 2; }
export CLOUDSDK_CORE_DISABLE_PROMPTS=1 CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK=1

# Runs "$@" COUNT times and prints the mean wall time of one run in microseconds; batching keeps
# the clock reads (two forks of date) out of a 2 ms measurement.
time_us() {
  local count=$1 start end
  shift
  start=$(date +%s%N)
  for ((k = 0; k < count; k++)); do "$@" >/dev/null 2>&1; done
  end=$(date +%s%N)
  echo $(((end - start) / 1000 / count))
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }

t_file=$(mktemp) g_file=$(mktemp)
trap 'rm -f "$t_file" "$g_file"' EXIT
"$tputrain" --version >/dev/null; gcloud --version >/dev/null 2>&1  # warm the page cache
for ((i = 0; i < reps; i++)); do
  time_us 20 "$tputrain" --version >>"$t_file"
  time_us 1 gcloud --version >>"$g_file"
done
t=$(median <"$t_file")
g=$(median <"$g_file")
awk -v t="$t" -v g="$g" -v n="$reps" 'BEGIN {
  printf "tputrain --version: median %.2f ms (%d batches of 20 runs)\n", t / 1000, n
  printf "gcloud --version:   median %.1f ms (%d runs)\n", g / 1000, n
  printf "ratio: 1/%.0f (goal: under 1/100)\n", g / t
}'
