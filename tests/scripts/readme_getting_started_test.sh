#!/usr/bin/env bash
# README.md's "Getting started", as a new user meets it: the section sits near the top of the page
# (after the two fresh-machine commands, before the tutorials) and stays under 60 lines, and its emulator rehearsal, cut
# out of README.md line for line, runs through bash in an empty directory with nothing but
# tputrain and tputrain-emulator on PATH and no credentials of any kind: the emulator's own export
# lines must be enough, and the block must end with a clean leak check (exit 0).
# Usage: tests/scripts/readme_getting_started_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
readme=$(cd "$1" && pwd)/README.md
build_dir=$(cd "$2" && pwd)
work=$(mktemp -d /tmp/tputrain-getting-started-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "readme_getting_started_test: $*" >&2; exit 1; }

# The page's first commands are the two for a fresh machine; Getting started is the first section.
head -n 10 "$readme" | grep -q '^    scripts/demo.sh ' || fail "scripts/demo.sh is not among the README's first lines"
head -n 10 "$readme" | grep -q '^    scripts/test.sh ' || fail "scripts/test.sh is not among the README's first lines"
# Getting started comes before the tutorials and the reference (after `tputrain up`, if that leads).
getting_started=$(grep -n -m1 '^## Getting started$' "$readme" | cut -d: -f1)
tutorials=$(grep -n -m1 '^## Tutorials$' "$readme" | cut -d: -f1)
[ -n "$getting_started" ] && [ -n "$tutorials" ] && [ "$getting_started" -lt "$tutorials" ] ||
  fail "Getting started does not come before the tutorials"
[ "$(grep -c '^## ' <(head -n "$getting_started" "$readme"))" -le 2 ] ||
  fail "Getting started is not among the README's first two sections"
section_lines=$(awk '/^## Getting started$/ {on = 1; next} on && /^## / {exit} on {n++} END {print n}' "$readme")
[ "$section_lines" -lt 60 ] || fail "Getting started is $section_lines lines long, want under 60"

# The rehearsal: the first indented block after "**3. A rehearsal**", as written.
awk '/^\*\*3\. A rehearsal\*\*/ {on = 1; next}
     on && /^    / {print substr($0, 5); block = 1; next}
     on && block {exit}' "$readme" >"$work/block.sh"
[ -s "$work/block.sh" ] || fail "no rehearsal block after '**3. A rehearsal**'"
grep -q '^tputrain emulator start ' "$work/block.sh" || fail "the rehearsal does not start the emulator"
[ "$(grep '^tputrain ' "$work/block.sh" | tail -n 1 | sed 's/ *#.*//')" = \
  "tputrain cleanup --dry-run --detailed-exitcode" ] || fail "the rehearsal does not end with the leak check"
# The emulator's export lines are the whole of the set-up: no token of the reader's own.
if sed 's/#.*//' "$work/block.sh" | grep -Eq '(^|[;&| ])export [^#]*ACCESS_TOKEN_FILE=|>[[:space:]]*[^ ]*token'; then
  fail "the rehearsal makes a token of its own"
fi

# Nothing but the two programs, and no settings or credentials from this machine: a new user's.
mkdir -p "$work/bin" "$work/home" "$work/run"
ln -s "$build_dir/tputrain" "$build_dir/tputrain-emulator" "$work/bin/"
# A failing block must not leave its emulator running: the harness then ends the block's jobs
# (once: a second SIGTERM would stop the emulator before it tidies up). Either way it waits for them.
{
  echo 'trap '\''[ $? = 0 ] || kill $(jobs -p) 2>/dev/null; wait'\'' EXIT'
  cat "$work/block.sh"
} >"$work/run.sh"
code=0
(cd "$work/run" &&
  env -i PATH="$work/bin:/usr/bin:/bin" HOME="$work/home" TMPDIR="$work" \
    bash -euo pipefail "$work/run.sh" >"$work/out" 2>"$work/err") || code=$?
if [ "$code" != 0 ]; then
  echo "--- block:" >&2; cat "$work/block.sh" >&2
  echo "--- stdout:" >&2; cat "$work/out" >&2
  echo "--- stderr:" >&2; cat "$work/err" >&2
  fail "the rehearsal exited $code"
fi
grep -q 'ray-tpu' "$work/out" || fail "the rehearsal's node pool list names no pool of ray-tpu: $(cat "$work/out")"
grep -q 'tpu-v6e-16\|v6e-16' "$work/out" || fail "the rehearsal made no v6e-16 pool: $(cat "$work/out")"
# The emulator's token file lives while it runs and goes with it.
if compgen -G "$work/tputrain-emulator-*" >/dev/null; then fail "the emulator left its token directory behind"; fi
echo "readme_getting_started_test: ok ($(wc -l <"$work/block.sh") lines run)"
