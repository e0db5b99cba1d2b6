#!/usr/bin/env bash
# README command (b): install what is missing, build, and run every test
# (what, in which order: docs/testing.md). Ends with one line
# "tests: N passed, N failed", which CI reads, and fails when N failed > 0.
set -uo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s)
bash scripts/setup.sh --tests || exit 1

passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# tally RC: adds the last "N passed, N failed" line of $log to the totals; a
# run whose status RC is a failure without a failed check counts as one.
tally() {
  local summary
  summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
  if [ -n "$summary" ]; then
    set -- "$1" $summary
    passed=$((passed + $2))
    failed=$((failed + $4))
    [ "$1" -eq 0 ] || [ "$4" -gt 0 ] || failed=$((failed + 1))
  elif [ "$1" -ne 0 ]; then
    failed=$((failed + 1))
  fi
}
# counted COMMAND...: runs it, its output shown and kept in $log, and tallies it.
counted() {
  "$@" 2>&1 | tee "$log"
  tally "${PIPESTATUS[0]}"
}
fail() { echo "== $*"; failed=$((failed + 1)); }

run_suite() {
  local dir=$1 label=$2
  shift 2
  echo "== $label: building $dir"
  bash scripts/build.sh "$dir" "$@" || { fail "$label: BUILD FAILED"; return; }
  echo "== $label: running the tests"
  meson test -C "$dir" --print-errorlogs --num-processes 2
  # testlog.json: one JSON object per test; a skip counts neither way
  python3 - "$dir/meson-logs/testlog.json" >"$log" <<'PY'
import json, sys
results = [json.loads(line).get("result") for line in open(sys.argv[1])]
ok = sum(r in ("OK", "EXPECTEDFAIL") for r in results)
print(f"{ok} passed, {len(results) - ok - results.count('SKIP')} failed")
PY
  tally $?
}

run_suite build "test suite" -Dwerror=true
run_suite build-asan "sanitizers" -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false

echo "== fuzzing: scripts/fuzz.sh --seconds 30"
counted bash scripts/fuzz.sh --seconds 30

t_win=$(date +%s)
# --gui: cold, the GUI stack adds ~11 min to the command line's ~25 on 2 busy
# cores (README, Windows); build.sh falls back to the command line alone,
# saying so, when the GUI stack fails to build.
echo "== Windows: dependency stack, build-win, zip (scripts/windows/build.sh --gui)"
if bash scripts/windows/build.sh --gui; then
  echo "== Windows: build and zip took $(( $(date +%s) - t_win )) s"
  win_zip=$(ls -t dist/loadscope-*-win64.zip | head -n 1)
  echo "== Windows: self-tests under Wine"
  # through build.sh's Wine wrapper: the self-tests load the stack's DLLs
  WINE="${LS_CACHE:-$HOME/.cache/loadscope}/win-build/loadscope-wine" WINESERVER=/usr/lib/wine/wineserver \
    BUILD_DIR=build-win counted bash scripts/windows/selftest-wine.sh
  echo "== Windows: app/'s GLib tests under Wine"
  counted bash scripts/windows/test-app-wine.sh "$win_zip" build-win
  echo "== Windows: the zip end to end under Wine (the window included), then imported on Linux"
  t_e2e=$(date +%s)
  counted bash scripts/windows/test-wine.sh "$win_zip" build/app/loadscope
  echo "== Windows: end-to-end test took $(( $(date +%s) - t_e2e )) s"
  echo "== Windows: the installer (.msi from the zip) under Wine: install, run, uninstall"
  if win_msi=$(bash scripts/windows/package-msi.sh "$win_zip" | tail -n 1); then
    counted bash scripts/windows/test-msi-wine.sh "$win_msi"
  else
    fail "Windows: package-msi.sh FAILED"
  fi
else
  fail "Windows: BUILD FAILED (see above); the self-tests of platform/ and loader/ alone"
  BUILD_DIR=build-win-selftest counted bash scripts/windows/selftest-wine.sh
fi
echo "== Windows: $(( $(date +%s) - t_win )) s in all"

echo "== Debian package: scripts/package-deb.sh, tests/test-deb.sh"
if deb_file=$(bash scripts/package-deb.sh | tail -n 1); then
  counted bash tests/test-deb.sh "$deb_file"
else
  fail "Debian package: package-deb.sh FAILED"
fi

echo "== done in $(( $(date +%s) - started )) s"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
