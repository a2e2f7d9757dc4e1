#!/usr/bin/env bash
# expect_finding.sh CANARY DEFECT PATTERN: the canary, made to commit DEFECT, must exit non-zero
# with PATTERN (the sanitizer's report) on stderr.
set -uo pipefail
canary=$1 defect=$2 pattern=$3
report=$("$canary" "$defect" 2>&1 >/dev/null)
status=$?
if [ "$status" -eq 0 ]; then
  echo "FAILED: $defect went unnoticed (exit 0): the sanitizers are not in this build"
  exit 1
fi
if ! grep -qE -- "$pattern" <<<"$report"; then
  echo "FAILED: $defect exited $status without the report /$pattern/:"
  echo "$report"
  exit 1
fi
echo "1 passed: $defect exits $status with '$(grep -oE -- "$pattern" <<<"$report" | head -1)'"
