#!/usr/bin/env bash
# The model table built into tputrain (src/catalog/maxtext_models.cc) is what
# scripts/generate-model-table.py writes from the pinned MaxText (the maxtext package that
# scripts/peers/maxtext.sh installs): the script runs again into a scratch file and the two must
# be the same. A MaxText pin moved without regenerating, or a hand edit, fails here with the diff.
# Usage: tests/scripts/model_table_test.sh SOURCE_DIR
set -euo pipefail
source_dir=$(cd "$1" && pwd)
cache=${TPUTRAIN_TEST_CACHE:-$HOME/.cache/tputrain-test}
maxtext=$(ls -d "$cache"/maxtext/lib/python3*/site-packages/maxtext 2>/dev/null | tail -n 1)
if [ -z "$maxtext" ]; then
  echo "model_table_test: no MaxText in $cache/maxtext (scripts/peers/maxtext.sh installs the pinned one)" >&2
  exit 1
fi
work=$(mktemp -d /tmp/tputrain-model-table-XXXXXX)
trap 'rm -rf "$work"' EXIT
# The venv's Python: it has PyYAML (MaxText reads its configs with it).
"$cache/maxtext/bin/python" "$source_dir/scripts/generate-model-table.py" --maxtext "$maxtext" --output "$work/maxtext_models.cc" >/dev/null
if ! diff -u "$source_dir/src/catalog/maxtext_models.cc" "$work/maxtext_models.cc" >"$work/diff"; then
  head -n 60 "$work/diff"
  echo "model_table_test: src/catalog/maxtext_models.cc is not what scripts/generate-model-table.py writes from" \
    "$maxtext; run the script again and commit the result" >&2
  exit 1
fi
echo "model_table_test: src/catalog/maxtext_models.cc is current ($(grep -c '^      {"' "$work/maxtext_models.cc") models)"
