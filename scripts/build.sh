#!/usr/bin/env bash
# Configures and builds tputrain and its tests into ${TPUTRAIN_BUILD_DIR:-build}. Under CI
# (CI=true) debug info is line tables only (-g1, TPUTRAIN_DEBUG_INFO=lines) and the optimisation
# -O1 (TPUTRAIN_OPTIMIZE=1): backtraces keep file:line, the tests check behaviour, and the cold
# build is faster; locally it stays -O2 -g unless TPUTRAIN_DEBUG_INFO/TPUTRAIN_OPTIMIZE say
# otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${TPUTRAIN_BUILD_DIR:-build}
options=(-DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}")
if [ -n "${TPUTRAIN_DEBUG_INFO:-}" ]; then
  options+=(-DTPUTRAIN_DEBUG_INFO="$TPUTRAIN_DEBUG_INFO")
elif [ "${CI:-}" = true ]; then
  options+=(-DTPUTRAIN_DEBUG_INFO=lines)
fi
if [ -n "${TPUTRAIN_OPTIMIZE:-}" ]; then
  options+=(-DTPUTRAIN_OPTIMIZE="$TPUTRAIN_OPTIMIZE")
elif [ "${CI:-}" = true ]; then
  options+=(-DTPUTRAIN_OPTIMIZE=1)
fi
cmake -S . -B "$build_dir" -G Ninja "${options[@]}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
