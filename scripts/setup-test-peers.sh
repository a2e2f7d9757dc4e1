#!/usr/bin/env bash
# Prepares the real peers the integration tests talk to, once per machine, in a cache outside
# the checkout (TPUTRAIN_TEST_CACHE, default ~/.cache/tputrain-test). Each step is idempotent.
set -euo pipefail
cache=${TPUTRAIN_TEST_CACHE:-$HOME/.cache/tputrain-test}
mkdir -p "$cache"
here=$(cd "$(dirname "$0")" && pwd)
for step in "$here"/peers/*.sh; do
  [ -e "$step" ] || continue
  TPUTRAIN_TEST_CACHE=$cache bash "$step"
done
