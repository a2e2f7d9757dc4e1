#!/usr/bin/env bash
# The Saxml test peer (FAKE: Saxml builds only with Bazel and serves only on TPUs; see
# ../shared/notes/serving.md "Saxml"). The upstream sax-http server, ../shared/peers/saxml-http/
# http_server.py, runs unchanged from where it lies with the project's stand-in `sax` client
# (tests/testing/fake_sax) on PYTHONPATH. Everything else it imports (fastapi, uvicorn, pydantic)
# is in the jetstream-http venv, so it reuses that venv (made by jetstream.sh) and only checks,
# in half a second, that http_server.py imports there.
set -euo pipefail
cache=${TPUTRAIN_TEST_CACHE:-$HOME/.cache/tputrain-test}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
checkout=$(cd "$here/../.." && pwd)
shared=${TPUTRAIN_SHARED_DIR:-$(cd "$checkout/.." && pwd)/shared}
server_dir=$shared/peers/saxml-http
[ -f "$server_dir/http_server.py" ] || { echo "saxml-http.sh: $server_dir/http_server.py is missing (../shared beside the checkout)" >&2; exit 1; }

venv=$cache/jetstream-http
[ -x "$venv/bin/uvicorn" ] || TPUTRAIN_TEST_CACHE=$cache "$here/jetstream.sh"
(cd "$server_dir" && PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$checkout/tests/testing/fake_sax" \
  "$venv/bin/python" -c "import http_server, sax; assert sax.__file__.startswith('$checkout/')") >/dev/null 2>&1 || {
  echo "saxml-http.sh: $venv cannot import $server_dir/http_server.py with the fake sax client" >&2; exit 1; }
