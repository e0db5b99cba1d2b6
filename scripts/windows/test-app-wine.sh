#!/usr/bin/env bash
# app/'s GLib tests that need no display, built for Windows (build-win/tests/
# test-*.exe, see tests/meson.build) and run under Wine beside the unpacked
# zip's loadscope.exe and DLLs, in a throw-away Wine prefix.
#
#   test-app-wine.sh ZIP [BUILD_DIR]
#   LS_WINE_TESTS="test-store test-history" test-app-wine.sh ZIP   (a subset)
#
# Each program runs with --tap; its subtests count one by one. Prints each
# program's time and ends with "N passed, N failed"; exits non-zero on any
# failure (a program that crashes or times out counts as one failure).
# Each program's log in tests/artifacts/windows/app-tests/.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
zip=${1:?zip}
build=${2:-build-win}
# The list is kept in tests/meson.build (windows_app_tests): every
# test-*.exe the Windows build made.
tests=()
for exe in "$build"/tests/test-*.exe; do
  [ -f "$exe" ] && tests+=("$(basename "$exe" .exe)")
done
[ -z "${LS_WINE_TESTS:-}" ] || read -r -a tests <<<"$LS_WINE_TESTS" # a subset, by hand
started=$(date +%s)
passed=0
failed=0
LS_TAG=wine-app-tests
. scripts/lib.sh
[ "${#tests[@]}" -gt 0 ] || { say "no $build/tests/test-*.exe: build with scripts/windows/build.sh first"; echo "0 passed, 1 failed"; exit 1; }

. scripts/windows/wine-prefix.sh win-app
art=$root/tests/artifacts/windows/app-tests
rm -rf "$art"
mkdir -p "$art"

(cd "$tmp" && unzip -q "$root/$zip" 2>/dev/null || unzip -q "$zip") || { say "cannot unzip $zip"; echo "0 passed, 1 failed"; exit 1; }
bin=$(dirname "$(ls "$tmp"/*/bin/loadscope.exe)")
# beside the zip's DLLs, so they load as the shipped program's do
cp "$build/tests/helper-child.exe" "$build/tests/probe-standin.exe" "$bin/"
wine_boot || { say "no Wine prefix (wineboot failed twice, see above)"; echo "0 passed, 1 failed"; exit 1; }

# what meson's test environment gives them natively (tests/meson.build)
export GSETTINGS_BACKEND=memory
LOADSCOPE=$(win_path "$bin/loadscope.exe")
LOADSCOPE_WORKER=$(win_path "$bin/loadscope-worker.exe")
LS_HELPER_CHILD=$(win_path "$bin/helper-child.exe")
LS_TEST_DATA=$(win_path "$root/tests/data")
LS_PROBE_STANDIN=$(win_path "$bin/probe-standin.exe")
export LOADSCOPE LOADSCOPE_WORKER LS_HELPER_CHILD LS_TEST_DATA LS_PROBE_STANDIN

# run_one NAME: runs test NAME.exe under Wine into $log; its status in rc.
run_one() {
  (cd "$tmp" && G_DEBUG=$g_debug timeout 600 "$WINE" "$bin/$1.exe" --tap </dev/null >"$log" 2>&1)
  rc=$?
  sed -i 's/\r$//' "$log"
}

for t in "${tests[@]}"; do
  if [ ! -f "$build/tests/$t.exe" ]; then
    say "FAILED: $t: $build/tests/$t.exe was not built"
    failed=$((failed + 1))
    continue
  fi
  cp "$build/tests/$t.exe" "$bin/"
  t0=$(date +%s)
  log=$tmp/$t.log
  # Programs that draw charts start loadscope.exe, which draws them too:
  # there Pango's win32 font map warns (CRITICAL) about fonts Wine's
  # DirectWrite describes badly, so G_DEBUG does not make warnings fatal
  # for them (tests/test-util.c lets that one warning pass in-process).
  case $t in test-run-list) g_debug= ;; *) g_debug=fatal-warnings ;; esac
  run_one "$t"
  # Under load, Wine now and then fails a spawn with EINVAL before the
  # command runs ("Failed to execute helper program (Invalid argument)", or
  # "... child process (Invalid argument)"): such a program runs once more.
  spawn_failed='Failed to execute (helper program|child process) \(Invalid argument\)'
  # So does one that printed not even its TAP plan: Wine did not start it
  # (a prefix that never booted is caught before, by wine_boot).
  if [ "$rc" -ne 0 ] && ! grep -q '^1\.\.' "$log"; then
    say "$t: exit $rc before its first line (Wine did not start it); running it once more"
    run_one "$t"
  fi
  if [ "$rc" -ne 0 ] && grep -Eq "$spawn_failed" "$log"; then
    say "$t: Wine failed to start a process ($(grep -Eo "$spawn_failed" "$log" | head -n 1)); running it once more"
    run_one "$t"
  fi
  cp "$log" "$art/"
  ok=$(grep -c '^ok ' "$log")
  bad=$(grep -c '^not ok ' "$log")
  skipped=$(grep -c '^ok .* # SKIP' "$log")
  passed=$((passed + ok - skipped))
  failed=$((failed + bad))
  if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
    failed=$((failed + 1))
  fi
  say "$t: $((ok - skipped)) passed, $skipped skipped, $bad failed, exit $rc in $(( $(date +%s) - t0 )) s"
  if [ "$rc" -ne 0 ] || [ "$bad" -gt 0 ]; then
    grep -E '^not ok|ERROR|Bail out|CRITICAL|WARNING' "$log" | head -n 15 | sed 's/^/    /'
  fi
done
say "took $(( $(date +%s) - started )) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
