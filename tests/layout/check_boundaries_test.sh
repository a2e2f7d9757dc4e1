#!/usr/bin/env bash
# check_boundaries.sh against deliberate violations: the real tree copied with one bad include,
# and small fixture trees for each rule. Each case asserts the exit status and that the output
# names the file and the offending edge.
set -uo pipefail
source_dir=${1:?usage: check_boundaries_test.sh SOURCE_DIR}
check="$source_dir/tests/layout/check_boundaries.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

# expect NAME STATUS TREE [TEXT...]: check.sh on TREE exits STATUS and prints every TEXT.
expect() {
  local name=$1 want=$2 tree=$3
  shift 3
  local output status
  output=$(bash "$check" "$tree" 2>&1)
  status=$?
  local ok=1
  [ "$status" -eq "$want" ] || ok=0
  for text in "$@"; do
    grep -qF -- "$text" <<<"$output" || { ok=0; echo "  missing: $text"; }
  done
  if [ "$ok" -eq 1 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED: $name (exit $status, wanted $want)"
    sed 's/^/  | /' <<<"$output"
  fi
}

# A tree of three modules, core <- http <- gcp, each with one header and one source.
fixture() {
  local tree="$work/$1"
  mkdir -p "$tree/cmake"
  printf '# fixture\ncore:\nhttp: core\ngcp: http  # core only through http\n' >"$tree/cmake/modules.graph"
  for module in core http gcp; do
    mkdir -p "$tree/include/tputrain/$module" "$tree/src/$module"
    echo '#pragma once' >"$tree/include/tputrain/$module/$module.h"
    echo "#include \"tputrain/$module/$module.h\"" >"$tree/src/$module/$module.cc"
    echo "tputrain_module($module SOURCES $module.cc)" >"$tree/src/$module/CMakeLists.txt"
  done
  echo '#include "tputrain/http/http.h"' >>"$tree/src/gcp/gcp.cc"
  echo '#include "tputrain/core/core.h"' >>"$tree/src/http/http.cc"
  echo '#include "tputrain/gcp/gcp.h"' >"$tree/src/main.cc"  # the program: each header has a user outside
  echo "$tree"
}

expect "the real tree keeps the graph" 0 "$source_dir" "1 passed, 0 failed"

real="$work/real"
mkdir -p "$real"
cp -r "$source_dir/src" "$source_dir/include" "$source_dir/cmake" "$real/"
expect "a copy of the real tree passes" 0 "$real" "1 passed, 0 failed"
echo '#include "tputrain/catalog/tpu_types.h"' >>"$real/src/render/substitute.cc"
expect "render including the catalog fails, naming the file and the edge" 1 "$real" \
  "src/render/substitute.cc:" "includes tputrain/catalog/tpu_types.h" "render -> catalog is not in cmake/modules.graph"

tree=$(fixture transitive)
echo '#include "tputrain/core/core.h"' >>"$tree/src/gcp/gcp.cc"
expect "a dependency's dependency may be included" 0 "$tree" "1 passed, 0 failed"

tree=$(fixture upward)
echo '#include "tputrain/gcp/gcp.h"' >>"$tree/src/core/core.cc"
expect "an include against the direction of the edges fails" 1 "$tree" \
  "src/core/core.cc:2: includes tputrain/gcp/gcp.h, but core -> gcp is not in cmake/modules.graph"

tree=$(fixture header)
echo '#include <tputrain/gcp/gcp.h>' >>"$tree/include/tputrain/http/http.h"
expect "a public header is held to its module's edges" 1 "$tree" \
  "include/tputrain/http/http.h:2: includes tputrain/gcp/gcp.h, but http -> gcp"

tree=$(fixture cmake_drift)
echo 'target_link_libraries(tputrain_core PUBLIC tputrain_http)' >>"$tree/src/core/CMakeLists.txt"
expect "a module link in CMake that bypasses the graph fails" 1 "$tree" \
  "src/core/CMakeLists.txt:2: links tputrain_http directly: the edge core -> http"

tree=$(fixture unknown_module)
mkdir -p "$tree/src/extra"
echo '#include "tputrain/core/core.h"' >"$tree/src/extra/extra.cc"
expect "a module missing from the graph fails" 1 "$tree" "src/extra/: module extra is not in cmake/modules.graph"

tree=$(fixture cycle)
printf 'core: gcp\nhttp: core\ngcp: http\n' >"$tree/cmake/modules.graph"
expect "a cycle (a use before its declaration) fails" 1 "$tree" \
  "cmake/modules.graph:1: core uses gcp, which is not declared above it"

tree=$(fixture curl)
echo '#include <curl/curl.h>' >>"$tree/src/gcp/gcp.cc"
expect "libcurl outside src/http/ still fails" 1 "$tree" "libcurl included outside src/http/: src/gcp/gcp.cc"

real_cli="$work/real_cli"
mkdir -p "$real_cli"
cp -r "$source_dir/src" "$source_dir/include" "$source_dir/cmake" "$real_cli/"
sed -i 's/^cli: /cli: emulator_server /' "$real_cli/cmake/modules.graph"
expect "tputrain (cli) reaching the emulator fails" 1 "$real_cli" \
  "cli reaches emulator: tputrain would link the emulator" "cli reaches emulator_server"

tree=$(fixture httplib)
echo '#include <httplib.h>' >>"$tree/src/gcp/gcp.cc"
expect "cpp-httplib outside the emulator's server fails" 1 "$tree" \
  "cpp-httplib included outside src/emulator_server/: src/gcp/gcp.cc"

tree=$(fixture private_header)
echo '#pragma once' >"$tree/include/tputrain/http/pool.h"
echo '#include "tputrain/http/pool.h"' >>"$tree/src/http/http.cc"
expect "a header only its own module includes fails: it belongs in src/" 1 "$tree" \
  "include/tputrain/http/pool.h: used only inside http: a module's private header lives in src/http/"

tree=$(fixture header_of_header)
echo '#pragma once' >"$tree/include/tputrain/http/pool.h"
echo '#include "tputrain/http/pool.h"' >>"$tree/include/tputrain/http/http.h"
expect "a header that a public header of its module includes is public" 0 "$tree" "1 passed, 0 failed"

real_private="$work/real_private"
mkdir -p "$real_private"
cp -r "$source_dir/src" "$source_dir/include" "$source_dir/cmake" "$real_private/"
echo '#pragma once' >"$real_private/include/tputrain/gcp/only_gcp.h"
echo '#include "tputrain/gcp/only_gcp.h"' >>"$real_private/src/gcp/endpoints.cc"
expect "the real tree with a header only gcp includes fails" 1 "$real_private" \
  "include/tputrain/gcp/only_gcp.h: used only inside gcp"

# cli includes only the modules its own line names: one include of each module it reaches only
# through them fails, naming the file and the edge.
real_face="$work/real_face"
mkdir -p "$real_face"
cp -r "$source_dir/src" "$source_dir/include" "$source_dir/cmake" "$real_face/"
cli_line=$(sed -n 's/^cli:\(.*\)$/\1/p' "$source_dir/cmake/modules.graph")
wanted=()
for module in http yaml gcp k8s ray serving state catalog render maxtext archive; do
  [[ " $cli_line " == *" $module "* ]] && continue
  header=$(cd "$source_dir/include" && find "tputrain/$module" -name '*.h' | sort | head -1)
  echo "#include \"$header\"" >>"$real_face/src/cli/context.cc"
  wanted+=("includes $header, but cli includes only what its line in cmake/modules.graph names")
done
expect "cli including a module it reaches only through what it names fails, for each (${#wanted[@]})" 1 \
  "$real_face" "src/cli/context.cc:" "${wanted[@]}"

# cli's own line names core, config and workflow only: an edge to any other module fails, even
# with no include of it.
real_edge="$work/real_edge"
mkdir -p "$real_edge"
cp -r "$source_dir/src" "$source_dir/include" "$source_dir/cmake" "$real_edge/"
sed -i 's/^cli: .*$/& gcp/' "$real_edge/cmake/modules.graph"
expect "cli's line naming a module but core, config and workflow fails" 1 "$real_edge" \
  "cmake/modules.graph: cli uses gcp: cli may use only core config workflow"

tree=$(fixture cli_size)
mkdir -p "$tree/src/cli"
printf 'cli: core\n' >>"$tree/cmake/modules.graph"
for i in $(seq 200); do echo "// line $i"; done >"$tree/src/cli/full.cc"
expect "a CLI file of 200 lines passes" 0 "$tree" "1 passed, 0 failed"
echo "// one more" >>"$tree/src/cli/full.cc"
expect "a CLI file over 200 lines fails, naming it" 1 "$tree" "src/cli/full.cc: 201 lines: no file under src/cli/ is over 200"

tree=$(fixture sleeps)
mkdir -p "$tree/src/gcp/operations"
echo 'void Wait(Sleeper& sleeper) { while (true) sleeper.Sleep(delay); }' >"$tree/src/gcp/operations/wait.cc"
echo 'void Pace(Sleeper* sleeper) { sleeper->Sleep(delay); }' >>"$tree/src/core/core.cc"
expect "sleeps in core and gcp/operations pass" 0 "$tree" "1 passed, 0 failed"
echo 'void Poll() { while (!Ready()) std::this_thread::sleep_for(delay); }' >>"$tree/src/gcp/gcp.cc"
expect "a poll loop of its own elsewhere fails, naming the line" 1 "$tree" \
  "src/gcp/gcp.cc:3: sleeps outside src/core/ and src/gcp/operations/"

tree=$(fixture architecture)
printf '| module | what |\n|---|---|\n| `core` | errors |\n| `http`, `gcp` | the rest |\n' >"$tree/ARCHITECTURE.md"
expect "ARCHITECTURE.md with a row for every module passes" 0 "$tree" "1 passed, 0 failed"
printf '| module | what |\n|---|---|\n| `core` | errors |\n| `http` | transports |\n' >"$tree/ARCHITECTURE.md"
expect "a module without its row in ARCHITECTURE.md fails" 1 "$tree" \
  "ARCHITECTURE.md: module gcp of cmake/modules.graph has no row in the module table"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
