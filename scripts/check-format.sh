#!/usr/bin/env bash
# Fails when any C++ file under src/, include/ or tests/ is not as .clang-format (Debian's
# clang-format) would write it, naming each file. `scripts/check-format.sh --fix` rewrites them.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check-format: clang-format is missing (scripts/install-deps.sh)" >&2; exit 2; }
# Tracked files and new ones not yet added (but not ignored ones), so a new file is formatted too.
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- 'src/*.h' 'src/*.cc' 'include/*.h' \
  'tests/*.h' 'tests/*.cc' | sort -u)
if [ "${1:-}" = "--fix" ]; then
  clang-format -i --style=file "${files[@]}"
  exit 0
fi
unformatted=()
for file in "${files[@]}"; do
  clang-format --style=file --dry-run --Werror "$file" >/dev/null 2>&1 || unformatted+=("$file")
done
if [ ${#unformatted[@]} -gt 0 ]; then
  printf '%s\n' "${unformatted[@]}"
  echo "check-format: ${#unformatted[@]} of ${#files[@]} files differ from .clang-format; run scripts/check-format.sh --fix" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
