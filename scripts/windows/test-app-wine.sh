#!/usr/bin/env bash
# app/'s GLib tests that need no display (build-win/tests/test-*.exe, listed
# in tests/meson.build), run with --tap under Wine beside the unpacked zip's
# loadscope.exe and DLLs, in a throw-away prefix; each subtest counts.
#   test-app-wine.sh ZIP [BUILD_DIR]                  details: docs/windows.md
#   LS_WINE_TESTS="test-store test-history" test-app-wine.sh ZIP   (a subset)
# Logs in tests/artifacts/windows/app-tests/; ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
zip=${1:?zip}
[[ $zip = /* ]] || zip=$root/$zip
build=${2:-build-win}
tests=()
for exe in "$build"/tests/test-*.exe; do
  [ -f "$exe" ] && tests+=("$(basename "$exe" .exe)")
done
[ -z "${LS_WINE_TESTS:-}" ] || read -r -a tests <<<"$LS_WINE_TESTS" # a subset, by hand
LS_TAG=wine-app-tests
. scripts/windows/wine-lib.sh win-app
[ "${#tests[@]}" -gt 0 ] || { bad "no $build/tests/test-*.exe: build with scripts/windows/build.sh first"; finish; }
art=$root/tests/artifacts/windows/app-tests
rm -rf "$art"
mkdir -p "$art"

unzip -q "$zip" -d "$tmp" || { bad "cannot unzip $zip"; finish; }
bin=$(dirname "$(ls "$tmp"/*/bin/loadscope.exe)")
# beside the zip's DLLs, so they load as the shipped program's do
cp "$build/tests/helper-child.exe" "$build/tests/probe-standin.exe" "$bin/"
wine_ready

# what meson's test environment gives them natively (tests/meson.build)
export GSETTINGS_BACKEND=memory
LOADSCOPE=$(win_path "$bin/loadscope.exe")
LOADSCOPE_WORKER=$(win_path "$bin/loadscope-worker.exe")
LS_HELPER_CHILD=$(win_path "$bin/helper-child.exe")
LS_TEST_DATA=$(win_path "$root/tests/data")
LS_PROBE_STANDIN=$(win_path "$bin/probe-standin.exe")
export LOADSCOPE LOADSCOPE_WORKER LS_HELPER_CHILD LS_TEST_DATA LS_PROBE_STANDIN

# run_one NAME: test NAME.exe under Wine, in $tmp, its output in $log
run_one() { (cd "$tmp" && G_DEBUG=$g_debug wine_run "$log" "" 600 "$bin/$1.exe" --tap); }

for t in "${tests[@]}"; do
  if [ ! -f "$build/tests/$t.exe" ]; then
    bad "$t: $build/tests/$t.exe was not built"
    continue
  fi
  cp "$build/tests/$t.exe" "$bin/"
  t0=$SECONDS
  log=$tmp/$t.log
  # Warnings fatal, but not where loadscope.exe draws charts: there Pango warns
  # about fonts Wine's DirectWrite describes badly (tests/test-util.c).
  case $t in test-run-list) g_debug= ;; *) g_debug=fatal-warnings ;; esac
  run_one "$t"
  rc=$?
  # One that printed not even its TAP plan: Wine did not start it (a prefix
  # that never booted is caught before, by wine_ready); it runs once more.
  if [ "$rc" -ne 0 ] && ! grep -q '^1\.\.' "$log"; then
    say "$t: exit $rc before its first line (Wine did not start it); running it once more"
    run_one "$t"
    rc=$?
  fi
  cp "$log" "$art/"
  ok=$(grep -c '^ok ' "$log")
  nok=$(grep -c '^not ok ' "$log")
  skipped=$(grep -c '^ok .* # SKIP' "$log")
  passed=$((passed + ok - skipped))
  failed=$((failed + nok))
  [ "$rc" -eq 0 ] || [ "$nok" -gt 0 ] || failed=$((failed + 1)) # it failed without a failed subtest
  say "$t: $((ok - skipped)) passed, $skipped skipped, $nok failed, exit $rc in $((SECONDS - t0)) s"
  if [ "$rc" -ne 0 ] || [ "$nok" -gt 0 ]; then
    grep -E '^not ok|ERROR|Bail out|CRITICAL|WARNING' "$log" | head -n 15 | sed 's/^/    /'
  fi
done
finish
