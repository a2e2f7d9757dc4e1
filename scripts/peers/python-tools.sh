#!/usr/bin/env bash
# A Python venv with the schema validators the render tests use: jsonschema and cel-python for
# CRD schemas (openAPIV3Schema and its x-kubernetes-validations rules), kubernetes-validate for
# the built-in types (OpenAPI schemas of a pinned Kubernetes release, bundled in the wheel). Idempotent: a venv whose
# stamp matches the pinned versions is left alone.
set -euo pipefail
cache=${TPUTRAIN_TEST_CACHE:-$HOME/.cache/tputrain-test}
venv=$cache/python-tools
pins=(jsonschema==4.23.0 kubernetes-validate==1.31.0 PyYAML==6.0.2 cel-python==0.5.0)
stamp="${pins[*]}"
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.stamp" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${pins[@]}"
"$venv/bin/python" -c "import jsonschema, kubernetes_validate, yaml, celpy"
echo "$stamp" > "$venv/.stamp"
