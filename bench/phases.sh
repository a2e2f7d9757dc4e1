#!/usr/bin/env bash
# Where a tputrain command's time goes, phase by phase: the command runs REPETITIONS times with
# TPUTRAIN_PHASES=1 (each run prints its phases on stderr at exit: milliseconds from main, and
# main's wall time), and this prints, for each phase, the median of its start and end counted
# from the launch of the process, with two phases only the bench can see: start-up (exec, the
# linked libraries, static set-up: launch to main) and exit (the last phase's end to the process's
# end: destructors, printing the phases, the exit itself). A phase shown as "beside" ran on a
# thread of its own. The command's output goes to /dev/null; its exit status must be 0.
#   start-up        launch to main
#   cli.tree        the command tree (CLI11) built
#   command         flags parsed and the command run, which holds:
#   config          project, location, ... resolved (flags, environment, tputrain.yaml, gcloud)
#   adc             which Application Default Credential applies (files read, nothing sent)
#   kubeconfig      the kubeconfig read and its context's server, CA and user resolved
#   credential      each request's token got (a file, an exchange, an exec plugin)
#   ledger          the run ledger's store opened
#   libcurl         on the first request: loading libcurl and the libraries it brings, and
#                   OpenSSL's set-up
#   http.dns .. http.rest   libcurl's own timing of each request: name lookup, connect, TLS
#                   handshake, request sent, first byte of the answer, the rest of it
#   exit            the last phase's end to the process's end
# Usage: bench/phases.sh [-n REPETITIONS] COMMAND [ARG...]   (default 21; COMMAND is a tputrain
#        binary, its environment this shell's)
set -euo pipefail
reps=21
if [ "${1:-}" = -n ]; then
  reps=$2
  shift 2
fi
[ $# -gt 0 ] || { echo "usage: bench/phases.sh [-n REPETITIONS] TPUTRAIN [ARG...]" >&2; exit 2; }
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "bench/phases.sh: REPETITIONS must be a positive count, not '$reps'" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$@" >/dev/null 2>&1 || { echo "bench/phases.sh: '$*' failed:" >&2; "$@" 2>&1 >/dev/null | tail -5 >&2; exit 1; }
for ((i = 0; i < reps; i++)); do
  launch=${EPOCHREALTIME/[.,]/}
  TPUTRAIN_PHASES=1 "$@" >/dev/null 2>"$work/err"
  end=${EPOCHREALTIME/[.,]/}
  # Every time from the launch, in ms: main's wall time (the origin line) less the launch.
  awk -v launch="$launch" -v end="$end" -v run="$i" '
    $1 == "phase" && $2 == "origin" { main = ($3 - launch) / 1000; print run, 0, "start-up", 0, main, 0; next }
    $1 == "phase" { seen[$2]++; last = ($4 + main > last) ? $4 + main : last
                    print run, NR, $2 "#" seen[$2], $3 + main, $4 + main, $5 }
    END { print run, 1e9, "exit", last, (end - launch) / 1000, 0 }' "$work/err" >>"$work/phases"
done

# The median start and end of each phase (named with its occurrence: http.connect#2 is the second
# request's), in the order the first run met them.
awk -v reps="$reps" '
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  !($3 in order) { order[$3] = ++count; name[count] = $3; thread[$3] = $6 }
  { begins[$3] = begins[$3] " " $4; ends[$3] = ends[$3] " " $5; runs[$3]++ }
  END {
    printf "%-18s %9s %9s %9s  %s\n", "phase (ms)", "from", "to", "length", "thread"
    for (k = 1; k <= count; k++) {
      p = name[k]; label = p; sub(/#1$/, "", label)
      b = median(begins[p]); e = median(ends[p])
      printf "%-18s %9.2f %9.2f %9.2f  %s%s\n", label, b, e, e - b, thread[p] ? "beside" : "main",
        runs[p] < reps ? sprintf(" (%d of %d runs)", runs[p], reps) : ""
    }
  }' "$work/phases"
