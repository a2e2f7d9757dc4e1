#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs what it needs, checks the formatting
# (.clang-format), builds while it sets up the test peers, runs every CTest test but the long ones
# (label `long`: 120 cleanup chaos schedules, run them with `ctest --test-dir build -L long`),
# then the unit tests again under ASan and UBSan
# (scripts/test-sanitized.sh, build-asan/). Extra arguments go to ctest (e.g. -L unit, -R
# emulator) and skip the sanitizer run, as does TPUTRAIN_SANITIZE_TESTS=0.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/check-format.sh  # seconds, and before the build: a formatting slip fails fast
# The test peers are set up while tputrain builds: on a new machine their steps wait on downloads
# much of the time, and their Go builds run at a lower priority than the C++ build (nice 15).
# Already cached (warm runs), they take a second.
peers_log=$(mktemp)
trap 'rm -f "$peers_log"' EXIT
scripts/setup-test-peers.sh >"$peers_log" 2>&1 &
peers=$!
if ! scripts/build.sh; then
  wait "$peers" || true  # nothing left running
  exit 1
fi
if ! wait "$peers"; then
  echo "test peers: set-up failed:" >&2
  tail -n 60 "$peers_log" >&2
  exit 1
fi
tail -n 20 "$peers_log"
build_dir=${TPUTRAIN_BUILD_DIR:-build}
sanitize=0
if [ $# -eq 0 ] && [ "${TPUTRAIN_SANITIZE_TESTS:-1}" != 0 ]; then sanitize=1; fi
# The sanitized build runs beside the suite, whose integration tests mostly wait on their peers,
# at a lower priority so that the tests keep the CPU they ask for.
if [ "$sanitize" = 1 ]; then
  san_log=$(mktemp)
  trap 'rm -f "$peers_log" "$san_log"' EXIT
  TPUTRAIN_SANITIZE_BUILD_ONLY=1 nice -n 10 scripts/test-sanitized.sh >"$san_log" 2>&1 &
  san_build=$!
fi
suite=0
(cd "$build_dir" && ctest --output-on-failure --no-tests=error -j "$(nproc)" -LE long "$@") || suite=$?
if [ "$sanitize" = 1 ]; then
  if ! wait "$san_build"; then
    echo "sanitized build failed:" >&2
    tail -n 60 "$san_log" >&2
    exit 1
  fi
  [ "$suite" = 0 ] || exit "$suite"
  scripts/test-sanitized.sh  # built: runs the unit tests
fi
exit "$suite"
