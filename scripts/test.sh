#!/usr/bin/env bash
# README command (b): install what is missing, build, and run every test:
#   1. the test suite (warnings are errors),
#   2. the same suite under AddressSanitizer + UndefinedBehaviorSanitizer,
#      then each libFuzzer harness for 30 s (scripts/fuzz.sh),
#   3. Windows: the dependency stack (cached), loadscope.exe and its zip
#      (scripts/windows/build.sh), then under Wine the self-tests, app/'s
#      GLib tests (scripts/windows/test-app-wine.sh) and the zip end to end,
#      the window included (scripts/windows/test-wine.sh), and the .msi
#      (scripts/windows/package-msi.sh, test-msi-wine.sh),
#   4. the Debian package (scripts/package-deb.sh, tests/test-deb.sh).
# Ends with one line "tests: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s)
bash scripts/setup.sh --tests || exit 1

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

# Fuzzing: each libFuzzer harness of tests/fuzz/ for 30 s under ASan+UBSan
# (clang, build-fuzz; docs/fuzzing.md); one pass or failure per harness.
echo "== fuzzing: scripts/fuzz.sh --seconds 30"
fuzz_log=$(mktemp)
bash scripts/fuzz.sh --seconds 30 2>&1 | tee "$fuzz_log"
fuzz_rc=${PIPESTATUS[0]}
fuzz_counts=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$fuzz_log" | tail -n 1)
if [ -n "$fuzz_counts" ]; then
  set -- $fuzz_counts
  passed=$((passed + $1))
  failed=$((failed + $3))
  [ "$fuzz_rc" -eq 0 ] || [ "$3" -gt 0 ] || failed=$((failed + 1))
else
  failed=$((failed + 1))
fi
rm -f "$fuzz_log"

# --- Windows: the stack, loadscope.exe and the zip, tested under Wine --------
# count_summary LOG RC: adds a "N passed, N failed" line of LOG to the totals;
# a run that failed without a failed check counts as one failure.
count_summary() {
  local summary
  summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
  if [ -n "$summary" ]; then
    set -- "$1" "$2" $summary
    passed=$((passed + $3))
    failed=$((failed + $5))
    [ "$2" -eq 0 ] || [ "$5" -gt 0 ] || failed=$((failed + 1))
  elif [ "$2" -ne 0 ]; then
    failed=$((failed + 1))
  fi
}
win_log=$(mktemp)
t_win=$(date +%s)
# The GUI stack too: measured cold, the command-line stack takes ~25 min and
# the GUI stack ~11 min on 2 busy cores, so a cold run stays near 45 min
# (README, Windows). build.sh falls back to the command line alone when the
# GUI stack fails to build, and says so.
win_gui=(--gui)
echo "== Windows: dependency stack, build-win, zip (scripts/windows/build.sh ${win_gui[*]})"
if bash scripts/windows/build.sh "${win_gui[@]}"; then
  echo "== Windows: build and zip took $(( $(date +%s) - t_win )) s"
  echo "== Windows: self-tests under Wine"
  # through build.sh's Wine wrapper: the self-tests load the stack's DLLs
  WINE="${LS_CACHE:-$HOME/.cache/loadscope}/win-build/loadscope-wine" WINESERVER=/usr/lib/wine/wineserver \
    BUILD_DIR=build-win bash scripts/windows/selftest-wine.sh 2>&1 | tee "$win_log"
  count_summary "$win_log" "${PIPESTATUS[0]}"
  echo "== Windows: app/'s GLib tests under Wine"
  bash scripts/windows/test-app-wine.sh "$(ls -t dist/loadscope-*-win64.zip | head -n 1)" build-win 2>&1 | tee "$win_log"
  count_summary "$win_log" "${PIPESTATUS[0]}"
  echo "== Windows: the zip end to end under Wine (the window included), then imported on Linux"
  t_e2e=$(date +%s)
  win_zip=$(ls -t dist/loadscope-*-win64.zip | head -n 1)
  bash scripts/windows/test-wine.sh "$win_zip" build/app/loadscope 2>&1 | tee "$win_log"
  count_summary "$win_log" "${PIPESTATUS[0]}"
  echo "== Windows: end-to-end test took $(( $(date +%s) - t_e2e )) s"
  echo "== Windows: the installer (.msi from the zip) under Wine: install, run, uninstall"
  if win_msi=$(bash scripts/windows/package-msi.sh "$win_zip" | tail -n 1); then
    bash scripts/windows/test-msi-wine.sh "$win_msi" 2>&1 | tee "$win_log"
    count_summary "$win_log" "${PIPESTATUS[0]}"
  else
    echo "== Windows: package-msi.sh FAILED"
    failed=$((failed + 1))
  fi
else
  echo "== Windows: BUILD FAILED (see above); the self-tests of platform/ and loader/ alone"
  failed=$((failed + 1))
  BUILD_DIR=build-win-selftest bash scripts/windows/selftest-wine.sh 2>&1 | tee "$win_log"
  count_summary "$win_log" "${PIPESTATUS[0]}"
fi
rm -f "$win_log"
echo "== Windows: $(( $(date +%s) - t_win )) s in all"

# The Debian package: built (a release build of its own, build-deb) and
# inspected; scripts/fresh-check.sh --deb installs it into a fresh root.
echo "== Debian package: scripts/package-deb.sh, tests/test-deb.sh"
deb_log=$(mktemp)
if deb_file=$(bash scripts/package-deb.sh | tail -n 1); then
  bash tests/test-deb.sh "$deb_file" 2>&1 | tee "$deb_log"
  count_summary "$deb_log" "${PIPESTATUS[0]}"
else
  echo "== Debian package: package-deb.sh FAILED"
  failed=$((failed + 1))
fi
rm -f "$deb_log"

echo "== done in $(( $(date +%s) - started )) s"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
