#!/usr/bin/env bash
# The unit tests under AddressSanitizer and UndefinedBehaviorSanitizer, in their own build
# directory ${TPUTRAIN_SANITIZE_BUILD_DIR:-build-asan}: only what they need is built (target
# sanitized_unit_tests), at -O1 without debug info (reports name functions; line tables would add
# to the build), and the unit tests that run the tputrain binary (label uses_cli) are left to the
# main run. Any finding aborts the process that hit it, so its test fails and so does this
# script. Extra arguments go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${TPUTRAIN_SANITIZE_BUILD_DIR:-build-asan}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTPUTRAIN_SANITIZE=ON \
  -DTPUTRAIN_DEBUG_INFO=none >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target sanitized_unit_tests
# scripts/test.sh builds this beside the main suite, then runs the tests once the suite is done.
[ "${TPUTRAIN_SANITIZE_BUILD_ONLY:-0}" = 1 ] && exit 0
# halt_on_error: the first report ends the process with a failing status (UBSan findings are
# already fatal: -fno-sanitize-recover=undefined).
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
cd "$build_dir"
ctest --output-on-failure --no-tests=error -j "$(nproc)" -L unit -LE uses_cli "$@"
