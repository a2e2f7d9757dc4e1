#!/usr/bin/env bash
# clang-tidy (Debian's, .clang-tidy) over src/ with the build's compile commands, in parallel.
# Usage: scripts/tidy.sh [BUILD_DIR] [FILE...]   (default build/, every src/**/*.cc)
# Exits 1 when clang-tidy reports anything; findings go to stdout, one block per file.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
shift || true
command -v clang-tidy >/dev/null || { echo "tidy: clang-tidy is missing (scripts/install-deps.sh)" >&2; exit 2; }
[ -f "$build_dir/compile_commands.json" ] || { echo "tidy: no $build_dir/compile_commands.json (scripts/build.sh)" >&2; exit 2; }
# GCC's precompiled headers are not clang's: drop them (clang then parses the headers), and the
# GCC-only warning spellings clang does not know.
commands=$(mktemp -d)
trap 'rm -rf "$commands"' EXIT
sed -E 's# -Winvalid-pch##g; s# -include [^ ]*cmake_pch\.hxx##g' "$build_dir/compile_commands.json" \
  >"$commands/compile_commands.json"
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files 'src/*.cc')
fi
printf '%s\n' "${files[@]}" |
  xargs -P "$(nproc)" -n 4 clang-tidy -p "$commands" --quiet --extra-arg=-Wno-unknown-warning-option \
    >"$commands/findings.txt" 2>"$commands/errors.txt" || true
grep -v '^[0-9]* warnings\? generated\.$' "$commands/findings.txt" || true
count=$(grep -cE '^/.*: (warning|error):' "$commands/findings.txt" || true)
echo "tidy: ${count:-0} findings in ${#files[@]} files" >&2
[ "${count:-0}" -eq 0 ]
