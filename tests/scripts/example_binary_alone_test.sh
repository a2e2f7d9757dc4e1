#!/usr/bin/env bash
# An example script with DRY_RUN=1, as someone with only the binary runs it: tputrain copied into
# an empty directory (no templates beside it, no tputrain-emulator, no source tree), that directory
# alone on PATH besides the system's, run from another empty directory with no credentials and no
# settings of this machine. The dry run sends nothing, so it needs neither a network nor an
# account; the image step renders its template from the binary. It must print the requests and
# exit 0.
# Usage: tests/scripts/example_binary_alone_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir=$(cd "$1" && pwd)
build_dir=$(cd "$2" && pwd)
work=$(mktemp -d /tmp/tputrain-binary-alone-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "example_binary_alone_test: $*" >&2; exit 1; }

mkdir -p "$work/bin" "$work/run" "$work/home"
cp "$build_dir/tputrain" "$work/bin/tputrain"
[ "$(ls "$work/bin")" = tputrain ] || fail "the directory holds more than the binary"
# Nothing of Google's is reachable: a request sent would fail, and fail the dry run.
unreachable=http://127.0.0.1:9/
for example in 001-train-llama3-8b-gke.sh 004-ray-on-tpu-vms.sh; do
  code=0
  (cd "$work/run" &&
    env -i PATH="$work/bin:/usr/bin:/bin" HOME="$work/home" PROJECT=alone-project DRY_RUN=1 \
      CLOUDSDK_API_ENDPOINT_OVERRIDES_CONTAINER=$unreachable CLOUDSDK_API_ENDPOINT_OVERRIDES_TPU=$unreachable \
      CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE=${unreachable}storage/v1/ \
      bash "$source_dir/examples/$example" >"$work/out" 2>"$work/err") || code=$?
  if [ "$code" != 0 ]; then
    echo "--- stdout:" >&2; cat "$work/out" >&2
    echo "--- stderr:" >&2; cat "$work/err" >&2
    fail "DRY_RUN=1 $example exited $code with only the binary"
  fi
  grep -q '^POST http' "$work/out" || fail "DRY_RUN=1 $example printed no request"
  echo "example_binary_alone_test: DRY_RUN=1 $example: $(grep -c '^POST http' "$work/out") requests printed"
done
# And nothing was written where a user's state goes.
[ ! -e "$work/home/.local/state/tputrain" ] || fail "the dry run wrote a ledger"
echo "example_binary_alone_test: ok"
