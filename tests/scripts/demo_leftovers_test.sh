#!/usr/bin/env bash
# scripts/demo-leftovers.sh, demo.sh's last line, against `tputrain emulator start`: one line
# naming what the run left (exit 1) while its bucket exists, and the nothing-left line (exit 0)
# once `cleanup --yes` has deleted it.
# Usage: tests/scripts/demo_leftovers_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir=$(cd "$1" && pwd)
tputrain=$(cd "$2" && pwd)/tputrain
work=$(mktemp -d /tmp/tputrain-leftovers-XXXXXX)
emulator_pid=""
stop() {
  [ -n "$emulator_pid" ] && kill "$emulator_pid" 2>/dev/null && wait "$emulator_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap stop EXIT
fail() { echo "demo_leftovers_test: $*" >&2; exit 1; }

"$tputrain" emulator start --port 0 >"$work/emulator.env" 2>"$work/emulator.log" &
emulator_pid=$!
for _ in $(seq 300); do
  grep -q '^export CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE' "$work/emulator.env" && break
  kill -0 "$emulator_pid" 2>/dev/null || fail "the emulator exited: $(cat "$work/emulator.log")"
  sleep 0.1
done
# shellcheck disable=SC1090
source <(grep '^export ' "$work/emulator.env")
echo "leftovers-token" >"$work/token"
unset TPUTRAIN_BUCKET TPUTRAIN_PROJECT CLOUDSDK_COMPUTE_ZONE CLOUDSDK_COMPUTE_REGION
export CLOUDSDK_AUTH_ACCESS_TOKEN_FILE=$work/token CLOUDSDK_CORE_PROJECT=tputrain-leftovers TPUTRAIN_RUN=leftovers
export CLOUDSDK_CONFIG=$work/gcloud XDG_STATE_HOME=$work/state KUBECONFIG=$work/kubeconfig

# Runs the script; sets `out` (stdout) and `code`.
leftovers() {
  code=0
  out=$("$source_dir/scripts/demo-leftovers.sh" "$tputrain" leftovers) || code=$?
  [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || fail "more than one line: $out"
}

"$tputrain" bucket create gs://leftovers-test-ckpt --bucket-location us-east5 >/dev/null
leftovers
[ "$code" = 1 ] || fail "exit $code with the bucket left, want 1: $out"
[ "$out" = "LEFT of run leftovers: its ledger still has resources to delete; the emulator holds buckets: leftovers-test-ckpt" ] ||
  fail "with the bucket left: $out"

"$tputrain" cleanup --yes >/dev/null
leftovers
[ "$code" = 0 ] || fail "exit $code after cleanup, want 0: $out"
[[ $out == "Nothing of run leftovers is left: "* ]] || fail "after cleanup: $out"
echo "demo_leftovers_test: ok"
