#!/usr/bin/env bash
# README command (b): install what is missing, build, and run every test:
#   1. the test suite (warnings are errors),
#   2. the same suite under AddressSanitizer + UndefinedBehaviorSanitizer,
#   3. the Windows build's self-test under Wine.
# Ends with one line "tests: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s)
bash scripts/setup.sh || exit 1

passed=0
failed=0

# Counts the results in a meson testlog.json into passed/failed.
count_meson_results() {
  local counts
  counts=$(python3 - "$1" <<'PY'
import json, sys
ok = bad = 0
for line in open(sys.argv[1]):
    r = json.loads(line).get("result")
    if r in ("OK", "EXPECTEDFAIL", "SKIP"):
        ok += r != "SKIP"
    else:
        bad += 1
print(ok, bad)
PY
) || counts="0 1"
  passed=$((passed + ${counts% *}))
  failed=$((failed + ${counts#* }))
}

run_suite() {
  local dir=$1 label=$2
  shift 2
  echo "== $label: building $dir"
  if ! bash scripts/build.sh "$dir" "$@"; then
    echo "== $label: BUILD FAILED"
    failed=$((failed + 1))
    return
  fi
  echo "== $label: running the tests"
  meson test -C "$dir" --print-errorlogs --num-processes 2
  count_meson_results "$dir/meson-logs/testlog.json"
}

run_suite build "test suite" -Dwerror=true
run_suite build-asan "sanitizers" -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false

echo "== Windows: cross build and self-test under Wine"
wine_log=$(mktemp)
bash scripts/wine-selftest.sh 2>&1 | tee "$wine_log"
wine_rc=${PIPESTATUS[0]}
wine_summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$wine_log" | tail -n 1)
rm -f "$wine_log"
if [ -n "$wine_summary" ]; then
  set -- $wine_summary
  passed=$((passed + $1))
  failed=$((failed + $3))
fi
if [ "$wine_rc" -ne 0 ] && { [ -z "$wine_summary" ] || [ "${3:-0}" -eq 0 ]; }; then
  failed=$((failed + 1)) # the Wine run itself failed before or after its checks
fi

echo "== done in $(( $(date +%s) - started )) s"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
