#!/usr/bin/env bash
# A Python venv with the Ray release that ../shared/notes/ray.md was checked against, so the
# tests can start a real Ray head (`ray start --head`) and the benchmarks can time `ray job`.
# Idempotent: a venv whose stamp matches the pin is left alone.
set -euo pipefail
cache=${TPUTRAIN_TEST_CACHE:-$HOME/.cache/tputrain-test}
venv=$cache/ray
pins=("ray[default]==2.60.0")
stamp="${pins[*]}"
if [ -x "$venv/bin/ray" ] && [ "$(cat "$venv/.stamp" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi
# Ray 2.60 wheels exist for CPython 3.10-3.13; prefer pyenv's 3.12 when the machine has it.
python=python3
for candidate in "$HOME/.pyenv/versions/3.12.1/bin/python3" python3.12; do
  if command -v "$candidate" >/dev/null 2>&1; then python=$candidate; break; fi
done
rm -rf "$venv"
mkdir -p "$cache"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${pins[@]}"
"$venv/bin/ray" --version >/dev/null
echo "$stamp" > "$venv/.stamp"
