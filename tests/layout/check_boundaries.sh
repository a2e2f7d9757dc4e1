#!/usr/bin/env bash
# Module boundaries the linker cannot see (CLI11 and libcurl are header-visible everywhere):
# only src/cli/ may include CLI11 and only src/http/ may include libcurl; no stub markers.
set -uo pipefail
root=${1:?usage: check_boundaries.sh SOURCE_DIR}
cd "$root" || exit 2
status=0
cli=$(grep -rlE '#include\s*[<"]CLI/' src include | grep -v '^src/cli/' || true)
if [ -n "$cli" ]; then echo "CLI11 included outside src/cli/: $cli"; status=1; fi
curl=$(grep -rlE '#include\s*[<"]curl/' src include | grep -v '^src/http/' || true)
if [ -n "$curl" ]; then echo "libcurl included outside src/http/: $curl"; status=1; fi
stubs=$(grep -rnE 'not (yet )?implemented|TODO: implement|FIXME: stub' src include || true)
if [ -n "$stubs" ]; then echo "stub markers: $stubs"; status=1; fi
checked=$(find src include -name '*.h' -o -name '*.cc' | wc -l)
if [ "$status" -eq 0 ]; then echo "1 passed, 0 failed ($checked files checked)"; else echo "0 passed, 1 failed"; fi
exit $status
