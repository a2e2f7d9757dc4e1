#!/usr/bin/env bash
# The real JetStream serving stack on CPU, as seed 002's pod runs it (../shared/notes/serving.md):
# MaxText's own engine (maxengine_server) with JetStream at the commit MaxText 0.2.5 pins, added
# to the MaxText peer venv (scripts/peers/maxtext.sh) from ../shared/peers/jetstream-29329e8.tar.gz
# (GitHub is not reachable here; the archive is the unmodified upstream source), plus seqio; and
# the jetstream-http front end's own small venv (JetStream 0.2.2's protos, FastAPI, uvicorn).
# The upstream http_server.py is run from ../shared/peers/jetstream-http/, never copied.
# Idempotent: venvs whose stamps match are left alone.
set -euo pipefail
cache=${TPUTRAIN_TEST_CACHE:-$HOME/.cache/tputrain-test}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
shared=${TPUTRAIN_SHARED_DIR:-$(cd "$here/../../.." && pwd)/shared}
archive=$shared/peers/jetstream-29329e8.tar.gz
[ -f "$archive" ] || { echo "jetstream.sh: $archive is missing (../shared beside the checkout)" >&2; exit 1; }

"$here/maxtext.sh"
engine=$cache/maxtext
engine_stamp="jetstream-29329e8 seqio"
if [ "$(cat "$engine/.jetstream-stamp" 2>/dev/null)" != "$engine_stamp" ]; then
  unpacked=$(mktemp -d)
  trap 'rm -rf "$unpacked"' EXIT
  tar -xzf "$archive" -C "$unpacked"
  source_dir=$(dirname "$(find "$unpacked" -maxdepth 2 -name setup.py | head -1)")
  "$engine/bin/python" -m pip install --quiet --disable-pip-version-check seqio
  "$engine/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation "$source_dir"
  JAX_PLATFORMS=cpu "$engine/bin/python" -c "import jetstream.core.server_lib, maxtext.inference.maxengine.maxengine_server" \
    >/dev/null 2>&1 || { echo "jetstream.sh: the engine venv does not import JetStream's server" >&2; exit 1; }
  echo "$engine_stamp" >"$engine/.jetstream-stamp"
fi

http=$cache/jetstream-http
http_pins=("google-jetstream==0.2.2" "grpcio" "protobuf" "fastapi" "uvicorn" "pydantic")
http_stamp="${http_pins[*]}"
if [ ! -x "$http/bin/uvicorn" ] || [ "$(cat "$http/.stamp" 2>/dev/null)" != "$http_stamp" ]; then
  python=
  for candidate in "$HOME/.pyenv/versions/3.12.1/bin/python3" python3.12 python3; do
    if command -v "$candidate" >/dev/null 2>&1; then python=$candidate; break; fi
  done
  rm -rf "$http"
  "$python" -m venv "$http"
  "$http/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "${http_pins[0]}"
  "$http/bin/python" -m pip install --quiet --disable-pip-version-check "${http_pins[@]:1}"
  (cd "$shared/peers/jetstream-http" && "$http/bin/python" -c "import http_server") >/dev/null 2>&1 || {
    echo "jetstream.sh: the jetstream-http venv cannot import http_server.py" >&2; exit 1; }
  echo "$http_stamp" >"$http/.stamp"
fi
