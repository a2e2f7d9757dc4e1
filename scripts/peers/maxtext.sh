#!/usr/bin/env bash
# A Python 3.12 venv with MaxText 0.2.5 (CPU-capable through its tpu extra: jax falls back to
# the CPU) and Ray, so that tests can start a Ray head whose jobs import MaxText and really train.
# The Ray version is the one scripts/peers/ray.sh pins. Idempotent: a venv whose stamp matches
# the pins is left alone.
set -euo pipefail
cache=${TPUTRAIN_TEST_CACHE:-$HOME/.cache/tputrain-test}
venv=$cache/maxtext
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ray_pin=$(sed -n 's/^pins=("\(ray\[default\]==[^"]*\)").*/\1/p' "$here/ray.sh")
[ -n "$ray_pin" ] || { echo "maxtext.sh: cannot read the Ray pin from ray.sh" >&2; exit 1; }
pins=("maxtext[tpu]==0.2.5" "$ray_pin")
stamp="${pins[*]}"
if [ -x "$venv/bin/ray" ] && [ "$(cat "$venv/.stamp" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi
# MaxText 0.2.5 requires Python >= 3.12; older interpreters see no release at all.
python=
for candidate in "$HOME/.pyenv/versions/3.12.1/bin/python3" python3.12 python3.13; do
  if command -v "$candidate" >/dev/null 2>&1; then python=$candidate; break; fi
done
[ -n "$python" ] || { echo "maxtext.sh: MaxText 0.2.5 needs Python 3.12 or newer (none found)" >&2; exit 1; }
rm -rf "$venv"
mkdir -p "$cache"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${pins[@]}"
JAX_PLATFORMS=cpu "$venv/bin/python" -c "import maxtext.utils.maxtext_utils, ray" >/dev/null 2>&1 || {
  echo "maxtext.sh: the venv does not import maxtext and ray" >&2; exit 1; }
echo "$stamp" > "$venv/.stamp"
