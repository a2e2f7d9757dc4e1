#!/usr/bin/env bash
# Module boundaries the compiler cannot see, because every module has the whole include root:
# - the module graph (cmake/modules.graph): an #include "tputrain/<m>/..." in src/<module>/ or
#   include/tputrain/<module>/ must name the module itself or one it reaches through the graph's
#   edges, every module directory must be in the graph, and no CMakeLists.txt under src/ may link
#   a module the graph does not give it (cmake/modules.cmake links the graph's edges);
# - only src/cli/ and src/emulator_main.cc (the two programs' flags) may include CLI11, and only
#   src/http/ libcurl (both are header-visible everywhere); only src/emulator_server/ cpp-httplib,
#   and no module tputrain links reaches the emulator's;
# - a header in include/tputrain/<m>/ is there because something outside <m> includes it (another
#   module or a program's main), directly or through another such header of <m>; one that only
#   <m> itself includes is private and lives in src/<m>/;
# - cli, the program's face, uses only core, config and workflow, and includes only the modules its
#   own line names (what it reaches through them, it reaches through their calls); the others may
#   include whatever they reach;
# - no file under src/cli/ is over 200 lines (a command translates: flags, one workflow call,
#   printing);
# - nothing sleeps outside src/core/ and src/gcp/operations/ (the one poll loop and the one
#   operation wait) but the retries of one request named in kRetrySleeps below, each with why;
# - every module of the graph has its row in ARCHITECTURE.md's table;
# - no stub markers.
# Prints one line per violation, naming the file and the edge; exits 1 on any.
set -uo pipefail
root=${1:?usage: check_boundaries.sh SOURCE_DIR}
cd "$root" || exit 2
graph_file=cmake/modules.graph
status=0
fail() { echo "$*"; status=1; }

declare -A direct=()   # module → its direct dependencies, as the graph lists them
declare -a order=()
if [ ! -f "$graph_file" ]; then
  echo "$graph_file: missing"
  exit 1
fi
line_number=0
while IFS= read -r line || [ -n "$line" ]; do
  line_number=$((line_number + 1))
  line=${line%%#*}
  [[ $line =~ ^[[:space:]]*$ ]] && continue
  if [[ ! $line =~ ^[[:space:]]*([a-z0-9_]+)[[:space:]]*:(.*)$ ]]; then
    fail "$graph_file:$line_number: expected 'module: dependency ...', got '$line'"
    continue
  fi
  module=${BASH_REMATCH[1]}
  deps=$(echo ${BASH_REMATCH[2]})
  for dep in $deps; do
    # Declared-before order makes the graph acyclic by construction (CMake checks the same).
    [ -n "${direct[$dep]+set}" ] || fail "$graph_file:$line_number: $module uses $dep, which is not declared above it"
  done
  direct[$module]=$deps
  order+=("$module")
done <"$graph_file"

# Each module's transitive closure, itself included; modules are declared after what they use,
# so one pass in file order sees every dependency's closure complete.
declare -A reach=()
for module in "${order[@]}"; do
  closure=" $module "
  for dep in ${direct[$module]}; do
    for reached in ${reach[$dep]:-$dep}; do
      [[ $closure == *" $reached "* ]] || closure+="$reached "
    done
  done
  reach[$module]=$closure
done

# cli, the program's face, uses the workflow (and core, and config for its settings) only: every
# other module it reaches is reached through a workflow call, so its line may name no other.
cli_may_use=(core config workflow)
if [ -n "${direct[cli]+set}" ]; then
  for dep in ${direct[cli]}; do
    [[ " ${cli_may_use[*]} " == *" $dep "* ]] ||
      fail "$graph_file: cli uses $dep: cli may use only ${cli_may_use[*]} (reach $dep through a workflow call)"
  done
fi

# Includes of tputrain headers, module by module. A module of direct_only includes only the
# modules its own line names, not what they reach.
direct_only=(cli)
checked=0
for dir in src/*/ include/tputrain/*/; do
  [ -d "$dir" ] || continue
  module=$(basename "$dir")
  if [ -z "${direct[$module]+set}" ]; then
    fail "$dir: module $module is not in $graph_file"
    continue
  fi
  while IFS=: read -r file number included; do
    [ -n "$file" ] || continue
    [[ $included =~ [\<\"](tputrain/([a-z0-9_]+)/[^\"\>]*) ]] || continue
    header=${BASH_REMATCH[1]}
    target=${BASH_REMATCH[2]}
    if [[ ${reach[$module]} != *" $target "* ]]; then
      fail "$file:$number: includes $header, but $module -> $target is not in $graph_file ($module uses:${direct[$module]:+ }${direct[$module]:-nothing})"
    elif [[ " ${direct_only[*]} " == *" $module "* && " $module ${direct[$module]} " != *" $target "* ]]; then
      fail "$file:$number: includes $header, but $module includes only what its line in $graph_file names ($module: ${direct[$module]}); $target is reached through their calls"
    fi
  done < <(grep -rnHE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]tputrain/[a-z0-9_]+/' "$dir" \
             --include='*.h' --include='*.cc' --include='*.h.in' || true)
  checked=$((checked + $(find "$dir" -name '*.h' -o -name '*.cc' | wc -l)))
done

# CMake links modules only through the graph; a tputrain_<module> named in a module's
# CMakeLists.txt (other than its own target) is an edge the graph does not know.
for cmakelists in src/*/CMakeLists.txt; do
  [ -f "$cmakelists" ] || continue
  module=$(basename "$(dirname "$cmakelists")")
  while IFS=: read -r number text; do
    for name in $(grep -oE 'tputrain_[a-z0-9_]+' <<<"$text"); do
      other=${name#tputrain_}
      [ "$other" = "$module" ] && continue
      [ -n "${direct[$other]+set}" ] || continue
      fail "$cmakelists:$number: links $name directly: the edge $module -> $other belongs in $graph_file, which tputrain_module links"
    done
  done < <(grep -nE 'tputrain_[a-z0-9_]+' "$cmakelists" | grep -vE '^[0-9]+:[[:space:]]*#' || true)
done

# Public headers: included from outside their module, or by a public header of their own.
declare -A public=() private_users=()
while IFS=: read -r file _ included; do
  [[ $included =~ [\<\"](tputrain/([a-z0-9_]+)/[^\"\>]*)[\"\>] ]] || continue
  header=${BASH_REMATCH[1]}
  owner=${BASH_REMATCH[2]}
  if [[ $file == src/$owner/* ]]; then continue; fi
  if [[ $file == include/tputrain/$owner/* ]]; then
    private_users[$header]+="${file#include/} "
  else
    public[$header]=1
  fi
done < <(grep -rnHE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]tputrain/[a-z0-9_]+/' src include \
           --include='*.h' --include='*.cc' --include='*.h.in' || true)
changed=1
while [ "$changed" -eq 1 ]; do
  changed=0
  for header in "${!private_users[@]}"; do
    [ -n "${public[$header]:-}" ] && continue
    for user in ${private_users[$header]}; do
      if [ -n "${public[${user%.in}]:-}" ]; then
        public[$header]=1
        changed=1
        break
      fi
    done
  done
done
while IFS= read -r file; do
  header=${file#include/}
  header=${header%.in}
  module=$(cut -d/ -f2 <<<"$header")
  [ -n "${public[$header]:-}" ] ||
    fail "$file: used only inside $module: a module's private header lives in src/$module/, not include/"
done < <(find include/tputrain -name '*.h' -o -name '*.h.in' | sort)

cli=$(grep -rlE '#include\s*[<"]CLI/' src include | grep -vE '^src/cli/|^src/emulator_main\.cc$' || true)
if [ -n "$cli" ]; then fail "CLI11 included outside src/cli/ and src/emulator_main.cc: $cli"; fi
httplib=$(grep -rlE '#include\s*[<"]httplib\.h' src include | grep -v '^src/emulator_server/' || true)
if [ -n "$httplib" ]; then fail "cpp-httplib included outside src/emulator_server/: $httplib"; fi
# tputrain (cli and all it reaches) is one program, the emulator another.
for emulator_module in emulator emulator_iap emulator_hosts emulator_server; do
  if [[ ${reach[cli]:-} == *" $emulator_module "* ]]; then
    fail "$graph_file: cli reaches $emulator_module: tputrain would link the emulator (it execs tputrain-emulator instead)"
  fi
done
# The CLI translates; a file of it that grows past 200 lines is doing work that belongs below.
while IFS= read -r file; do
  lines=$(wc -l <"$file")
  [ "$lines" -le 200 ] || fail "$file: $lines lines: no file under src/cli/ is over 200 (move the work into the workflow, not into another CLI file)"
done < <(find src/cli -name '*.cc' -o -name '*.h' 2>/dev/null | sort)

# Waits for state go through the one poll loop (core) or the one operation wait (gcp/operations);
# a sleep anywhere else is a retry of one request, and each is named here with its reason.
declare -A retry_sleeps=(
  [src/http/retrying_transport.cc]="the retrying transport: one request resent"
  [src/ray/jobs_client.cc]="the Jobs client: a submit resent after looking for it, an unanswered read"
  [src/ray/log_follower.cc]="the log follower riding out a head restart"
  [src/workflow/zone_failover.cc]="--retry-until-up: the gap before another round of creates"
  [src/workflow/tpu_vm_ssh_tunnel.cc]="the SSH tunnel's retry of a key the host does not know yet"
)
while IFS=: read -r file number _; do
  [ -n "$file" ] || continue
  [ -n "${retry_sleeps[$file]:-}" ] && continue
  fail "$file:$number: sleeps outside src/core/ and src/gcp/operations/: a wait for state paces with core::PollUntil (or operations::Wait); a retry of one request is named in check_boundaries.sh's retry_sleeps"
done < <(grep -rnE '(\.|->)Sleep\(|sleep_for|sleep_until|\busleep\(|\bnanosleep\(' src include --include='*.cc' --include='*.h' |
           grep -vE '^(src/core/|include/tputrain/core/|src/gcp/operations/|src/emulator[a-z_]*/)' || true)

# ARCHITECTURE.md's table has a row for every module of the graph.
if [ -f ARCHITECTURE.md ]; then
  for module in "${order[@]}"; do
    grep -qE "^\| *(\`[a-z_]+\`, *)*\`$module\`" ARCHITECTURE.md ||
      fail "ARCHITECTURE.md: module $module of $graph_file has no row in the module table"
  done
fi

curl=$(grep -rlE '#include\s*[<"]curl/' src include | grep -v '^src/http/' || true)
if [ -n "$curl" ]; then fail "libcurl included outside src/http/: $curl"; fi
stubs=$(grep -rnE 'not (yet )?implemented|TODO: implement|FIXME: stub' src include || true)
if [ -n "$stubs" ]; then fail "stub markers: $stubs"; fi
if [ "$status" -eq 0 ]; then
  echo "1 passed, 0 failed ($checked files checked against ${#order[@]} modules in $graph_file)"
else
  echo "0 passed, 1 failed"
fi
exit $status
