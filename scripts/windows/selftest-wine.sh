#!/usr/bin/env bash
# Cross-builds platform/, loader/ and tests/ with mingw-w64 and runs, under
# Wine in a throw-away prefix, tests/platform-selftest.exe (with
# helper-child.exe) and tests/loader-selftest.exe (with loadscope-worker.exe).
#   scripts/windows/selftest-wine.sh                  details: docs/windows.md
# Environment: WINE, WINESERVER, BUILD_DIR (build-win). Ends with ONE combined
# "N passed, N failed"; exits non-zero when the build or either test fails.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
build=${BUILD_DIR:-build-win}
LS_TAG=wine-selftest
. scripts/windows/wine-lib.sh wine-selftest
[ -x "$WINE" ] || { say "no Wine at $WINE (install wine64, see scripts/setup.sh --tests)"; exit 2; }

# --- build -----------------------------------------------------------------
if [ ! -f "$build/build.ninja" ]; then
  say "configuring $build (mingw-w64 cross build)"
  meson setup "$build" --cross-file scripts/mingw64-cross.ini -Dwerror=true || die "meson setup failed"
fi
say "building $build"
build_ok=1
if ! meson compile -C "$build"; then
  # Still run each self-test whose own programs build (-k0: all that can), so
  # a break elsewhere does not hide the other layer's results (the run fails).
  build_ok=0
  say "BUILD FAILED (see above); building only the self-tests' programs, to run them anyway"
  meson compile -C "$build" --ninja-args=-k0 tests/platform-selftest tests/helper-child \
    tests/loader-selftest loader/loadscope-worker || say "not all of them build either"
fi
b=$root/$build
# built FILES...: all there after the build, or says which is missing
built() {
  local f all=0
  for f; do
    [ -f "$f" ] || { say "missing $f after the build"; all=1; }
  done
  return $all
}
built "$b/tests/platform-selftest.exe" "$b/tests/helper-child.exe"
have_platform=$?
built "$b/tests/loader-selftest.exe" "$b/loader/loadscope-worker.exe"
have_loader=$?
[ "$have_platform" -eq 0 ] || [ "$have_loader" -eq 0 ] || die "neither self-test was built"

wine_ready
rc=0
t_tests=$SECONDS

# run_selftest NAME LIMIT_S PARTNER BUILT: NAME.exe under Wine, given the path
# of PARTNER; its summary added and shown as "# NAME: ...", so the combined
# one is the only bare one. Not built (BUILT not 0), a time-out, no summary,
# or a non-zero exit with no failed check: one more failure.
run_selftest() {
  local name=$1 limit=$2 t0=$SECONDS erc summary p f
  [ "$4" -eq 0 ] || { bad "$name was not built"; rc=1; return; }
  say "running $name.exe"
  # tr: the Windows C runtime ends lines with CR LF.
  timeout "$limit" "$WINE" "$b/tests/$name.exe" "$(win_path "$b/$3")" </dev/null 2>&1 | tr -d '\r' |
    tee "$tmp/$name.log" | sed -u -E "s/^([0-9]+ passed, [0-9]+ failed)\$/# $name: \1/"
  erc=${PIPESTATUS[0]}
  summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$tmp/$name.log" | tail -n 1)
  read -r p _ f _ <<<"${summary:-0 passed, 0 failed}"
  passed=$((passed + p))
  failed=$((failed + f))
  if [ "$erc" -eq 124 ]; then
    bad "$name TIMED OUT after $limit s"
  elif [ -z "$summary" ]; then
    bad "$name ended (exit $erc) without its summary line"
    [ "$erc" -ne 0 ] || erc=1
  elif [ "$erc" -ne 0 ] && [ "$f" -eq 0 ]; then
    bad "$name exited $erc although no check failed"
  fi
  say "$name took $((SECONDS - t0)) s: $([ "$erc" -eq 0 ] && echo PASS || echo "FAIL (exit $erc)")"
  [ "$erc" -eq 0 ] || rc=1
}

say "(children that crash on purpose make Wine print 'Unhandled page fault' lines)"
run_selftest platform-selftest 300 tests/helper-child.exe "$have_platform"
# The cuda sink on the stand-in driver (tests/fake-cuda-driver.c), after
# auto's fallback without one ("nvcuda.dll not found").
[ -f "$b/tests/fake-cuda-driver.dll" ] && export LS_SELFTEST_CUDA_STANDIN=$(win_path "$b/tests/fake-cuda-driver.dll")
run_selftest loader-selftest 240 loader/loadscope-worker.exe "$have_loader"

if [ "$build_ok" -eq 0 ]; then
  say "the Windows build is broken (see the build errors above): counted as a failure"
  rc=1
fi
say "self-tests took $((SECONDS - t_tests)) s, all in $SECONDS s: $([ "$rc" -eq 0 ] && echo PASS || echo FAIL)"
echo "$passed passed, $failed failed"
exit "$rc"
