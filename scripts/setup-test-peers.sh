#!/usr/bin/env bash
# Prepares the real peers the integration tests talk to, once per machine, in a cache outside
# the checkout (TPUTRAIN_TEST_CACHE, default ~/.cache/tputrain-test). Each step is idempotent.
# The Kubernetes peers (Go builds, CPU-bound) are built while the other steps (Python package
# installs, mostly downloads; vllm-sim.sh, the vLLM simulator's one Go build) run.
set -euo pipefail
cache=${TPUTRAIN_TEST_CACHE:-$HOME/.cache/tputrain-test}
mkdir -p "$cache"
here=$(cd "$(dirname "$0")" && pwd)
# The Go builds (k8s.sh's and vllm-sim.sh's) share one module and build cache, kept after a
# failure so that a retry reuses them and removed once every peer is set up.
export TPUTRAIN_GO_CACHES=$cache/.go
TPUTRAIN_TEST_CACHE=$cache bash "$here/peers/k8s.sh" &
k8s=$!
for step in "$here"/peers/*.sh; do
  [ -e "$step" ] || continue
  [ "$(basename "$step")" = k8s.sh ] && continue
  if ! TPUTRAIN_TEST_CACHE=$cache bash "$step"; then
    wait "$k8s" || true  # let the builds finish or fail on their own: nothing is left running
    exit 1
  fi
done
wait "$k8s"
if [ -d "$TPUTRAIN_GO_CACHES" ]; then
  chmod -R u+w "$TPUTRAIN_GO_CACHES" 2>/dev/null || true
  rm -rf "$TPUTRAIN_GO_CACHES"
fi
