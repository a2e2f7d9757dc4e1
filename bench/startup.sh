#!/usr/bin/env bash
# Start-up time, in one run so that all see the same machine load, interleaved:
#   tputrain --version
#   the floor: a C++ hello world linked to the same shared libraries as tputrain (what loading
#     and relocating them costs), and the same program linked to nothing but libstdc++
#   gcloud --version (what a user would otherwise run)
# Prints each median and the ratios.
# Usage: bench/startup.sh [REPETITIONS]   (TPUTRAIN=path/to/tputrain to pick a binary)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-21}
tputrain=${TPUTRAIN:-build/tputrain}
[ -x "$tputrain" ] || { echo "bench/startup.sh: $tputrain not built (run scripts/build.sh)" >&2; exit 2; }
command -v gcloud >/dev/null || { echo "bench/startup.sh: gcloud not installed" >&2; exit 2; }
export CLOUDSDK_CORE_DISABLE_PROMPTS=1 CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK=1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '#include <cstdio>\nint main() { std::puts("hello"); }\n' >"$work/hello.cc"
# The libraries tputrain's ELF header names, linked whether used or not (the floor must load them).
mapfile -t needed < <(readelf -d "$tputrain" | sed -n 's/.*Shared library: \[\(.*\)\]/-l:\1/p')
g++ -O2 "$work/hello.cc" -o "$work/floor_linked" -Wl,--no-as-needed "${needed[@]}"
g++ -O2 "$work/hello.cc" -o "$work/floor_plain"

# Runs "$@" COUNT times and prints the mean wall time of one run in microseconds; batching keeps
# the clock reads (two forks of date) out of a few-millisecond measurement.
time_us() {
  local count=$1 start end
  shift
  start=$(date +%s%N)
  for ((k = 0; k < count; k++)); do "$@" >/dev/null 2>&1; done
  end=$(date +%s%N)
  echo $(((end - start) / 1000 / count))
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }

for program in "$tputrain --version" "$work/floor_linked" "$work/floor_plain"; do $program >/dev/null; done
gcloud --version >/dev/null 2>&1  # warm the page cache
for ((i = 0; i < reps; i++)); do
  time_us 20 "$tputrain" --version >>"$work/t"
  time_us 20 "$work/floor_linked" >>"$work/l"
  time_us 20 "$work/floor_plain" >>"$work/p"
  time_us 1 gcloud --version >>"$work/g"
done
t=$(median <"$work/t") l=$(median <"$work/l") p=$(median <"$work/p") g=$(median <"$work/g")
awk -v t="$t" -v l="$l" -v p="$p" -v g="$g" -v n="$reps" 'BEGIN {
  printf "tputrain --version:             median %.2f ms (%d batches of 20 runs)\n", t / 1000, n
  printf "floor, same libraries linked:   median %.2f ms\n", l / 1000
  printf "floor, libstdc++ only:          median %.2f ms\n", p / 1000
  printf "gcloud --version:               median %.1f ms (%d runs)\n", g / 1000, n
  printf "tputrain / linked floor: %.2fx; gcloud / tputrain: %.0fx\n", t / l, g / t
}'
