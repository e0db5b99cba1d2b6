#!/usr/bin/env bash
# Cross-builds the Windows side (platform/, loader/ and tests/) with mingw-w64
# and runs two self-tests under Wine, in a throw-away Wine prefix:
# tests/platform-selftest.exe (with tests/helper-child.exe) and
# tests/loader-selftest.exe (with loader/loadscope-worker.exe).
#
#   scripts/windows/selftest-wine.sh    build dir: build-win
#
# Prints each self-test's lines, then ONE combined summary line
# "N passed, N failed" (the sum of both); exits non-zero when the build
# fails, either self-test fails, or either does not run to its summary.
# Bounded: every Wine start is under `timeout`. Environment: WINE (default /usr/lib/wine/wine64),
# WINESERVER (default: the wineserver next to it), BUILD_DIR (default build-win).
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

WINE=${WINE:-/usr/lib/wine/wine64}
WINESERVER=${WINESERVER:-$(dirname "$WINE")/wineserver}
[ -x "$WINESERVER" ] || WINESERVER=$(command -v wineserver || echo wineserver)
build=${BUILD_DIR:-build-win}
started=$(date +%s)

LS_TAG=wine-selftest
. scripts/lib.sh

if [ ! -x "$WINE" ]; then
  say "no Wine at $WINE (install wine64, see scripts/setup.sh --tests)"
  exit 2
fi

# --- build -----------------------------------------------------------------
if [ ! -f "$build/build.ninja" ]; then
  say "configuring $build (mingw-w64 cross build)"
  if ! meson setup "$build" --cross-file scripts/mingw64-cross.ini -Dwerror=true; then
    say "meson setup failed"
    exit 1
  fi
fi
say "building $build"
build_ok=1
if ! meson compile -C "$build"; then
  # Still run each self-test whose own programs build, so a break elsewhere
  # does not hide the other layer's results (the run still fails).
  build_ok=0
  say "BUILD FAILED (see above); building only the self-tests' programs, to run them anyway"
  meson compile -C "$build" tests/platform-selftest tests/helper-child ||
    say "the platform self-test does not build either"
  meson compile -C "$build" tests/loader-selftest loader/loadscope-worker ||
    say "the loader self-test does not build either"
fi
selftest="$root/$build/tests/platform-selftest.exe"
helper="$root/$build/tests/helper-child.exe"
loader_selftest="$root/$build/tests/loader-selftest.exe"
worker="$root/$build/loader/loadscope-worker.exe"
have_platform=1
have_loader=1
for f in "$selftest" "$helper"; do
  [ -f "$f" ] || { say "missing $f after the build"; have_platform=0; }
done
for f in "$loader_selftest" "$worker"; do
  [ -f "$f" ] || { say "missing $f after the build"; have_loader=0; }
done
if [ "$have_platform" -eq 0 ] && [ "$have_loader" -eq 0 ]; then
  say "neither self-test was built"
  exit 1
fi

# --- a fresh Wine prefix, removed (and its wineserver stopped) at exit ------
# (scripts/windows/wine-prefix.sh: winedbg off, so the children that crash
# on purpose do not start Wine's debugger; win_path)
. scripts/windows/wine-prefix.sh wine-selftest
say "initialising the Wine prefix $WINEPREFIX (first start: ~20-60 s)"
t0=$(date +%s)
wine_boot
rc=$?
if [ "$rc" -ne 0 ]; then
  say "wineboot failed (exit $rc$([ "$rc" -eq 124 ] && echo ', timed out after 300 s'))"
  exit 1
fi
say "prefix ready in $(( $(date +%s) - t0 )) s"

log=$(mktemp "${TMPDIR:-/tmp}/loadscope-wine-log.XXXXXX")
total_passed=0
total_failed=0
rc=0
t_tests=$(date +%s)

# run_selftest NAME LIMIT_S EXE ARG: runs one self-test under Wine, bounded
# by LIMIT_S, and adds its summary to the totals. Its own summary line is
# shown as "# NAME: N passed, N failed", so that the combined one at the end
# is the only bare one. A self-test that times out, ends without its summary
# line, or exits non-zero with no failed check, counts as one more failure.
run_selftest() {
  local name=$1 limit=$2 exe=$3 arg=$4 t0 erc summary p f
  say "running $name.exe"
  t0=$(date +%s)
  # tr: the Windows C runtime ends lines with CR LF.
  timeout "$limit" "$WINE" "$exe" "$arg" </dev/null 2>&1 | tr -d '\r' | tee "$log" |
    sed -u -E "s/^([0-9]+ passed, [0-9]+ failed)\$/# $name: \1/"
  erc=${PIPESTATUS[0]}
  summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
  if [ "$erc" -eq 124 ]; then
    say "$name TIMED OUT after $limit s"
  elif [ -z "$summary" ]; then
    say "$name ended (exit $erc) without its summary line"
  fi
  if [ -n "$summary" ]; then
    p=${summary%% passed*}
    f=${summary#*passed, }
    f=${f%% failed}
    total_passed=$((total_passed + p))
    total_failed=$((total_failed + f))
  fi
  if [ -z "$summary" ] || [ "$erc" -eq 124 ]; then
    total_failed=$((total_failed + 1))
    [ "$erc" -ne 0 ] || erc=1
  elif [ "$erc" -ne 0 ] && [ "$f" -eq 0 ]; then
    say "$name exited $erc although no check failed"
    total_failed=$((total_failed + 1))
  fi
  say "$name took $(( $(date +%s) - t0 )) s: $([ "$erc" -eq 0 ] && echo PASS || echo "FAIL (exit $erc)")"
  [ "$erc" -eq 0 ] || rc=1
}

if [ "$have_platform" -eq 1 ]; then
  say "(children that crash on purpose make Wine print 'Unhandled page fault' lines)"
  run_selftest platform-selftest 300 "$selftest" "$(win_path "$helper")"
else
  say "platform-selftest was not built: counted as a failure"
  total_failed=$((total_failed + 1))
  rc=1
fi
if [ "$have_loader" -eq 1 ]; then
  # The cuda sink on the stand-in driver (tests/fake-cuda-driver.c), after
  # auto's fallback without one ("nvcuda.dll not found").
  standin="$root/$build/tests/fake-cuda-driver.dll"
  [ -f "$standin" ] && export LS_SELFTEST_CUDA_STANDIN=$(win_path "$standin")
  run_selftest loader-selftest 240 "$loader_selftest" "$(win_path "$worker")"
else
  say "loader-selftest was not built: counted as a failure"
  total_failed=$((total_failed + 1))
  rc=1
fi
rm -f "$log"

if [ "$build_ok" -eq 0 ]; then
  say "the Windows build is broken (see the build errors above): counted as a failure"
  rc=1
fi
say "self-tests took $(( $(date +%s) - t_tests )) s, all in $(( $(date +%s) - started )) s: $([ "$rc" -eq 0 ] && echo PASS || echo FAIL)"
echo "$total_passed passed, $total_failed failed"
exit "$rc"
