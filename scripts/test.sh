#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs what it needs, checks the formatting
# (.clang-format), builds, sets up the test peers, runs every CTest test but the long ones
# (label `long`: 120 cleanup chaos schedules, run them with `ctest --test-dir build -L long`),
# then the unit tests again under ASan and UBSan
# (scripts/test-sanitized.sh, build-asan/). Extra arguments go to ctest (e.g. -L unit, -R
# emulator) and skip the sanitizer run, as does TPUTRAIN_SANITIZE_TESTS=0.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/check-format.sh  # seconds, and before the build: a formatting slip fails fast
scripts/build.sh
build_dir=${TPUTRAIN_BUILD_DIR:-build}
scripts/setup-test-peers.sh
(cd "$build_dir" && ctest --output-on-failure --no-tests=error -j "$(nproc)" -LE long "$@")
if [ $# -eq 0 ] && [ "${TPUTRAIN_SANITIZE_TESTS:-1}" != 0 ]; then
  scripts/test-sanitized.sh
fi
