#!/usr/bin/env bash
# The main job, locally: build tputrain and walk the seed workloads through it. Needs no cloud
# account: everything runs on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh >/dev/null
tputrain=${TPUTRAIN_BUILD_DIR:-build}/tputrain

echo "== Sizing the seed workloads (tputrain plan)"
for model in llama3-8b llama3.1-405b llama2-70b saxml-175b-test; do
  echo "-- $model"
  "$tputrain" plan --model "$model"
done
