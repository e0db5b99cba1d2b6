#!/usr/bin/env bash
# Cross-builds the Windows side (platform/ and tests/) with mingw-w64 and runs
# tests/platform-selftest.exe under Wine, in a throw-away Wine prefix.
#
#   scripts/wine-selftest.sh            build dir: build-win
#
# Prints the self-test's lines and its summary "N passed, N failed"; exits
# non-zero when the build or any check fails. Bounded: every Wine start is
# under `timeout`. Environment: WINE (default /usr/lib/wine/wine64),
# WINESERVER (default: the wineserver next to it), BUILD_DIR (default build-win).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

WINE=${WINE:-/usr/lib/wine/wine64}
WINESERVER=${WINESERVER:-$(dirname "$WINE")/wineserver}
[ -x "$WINESERVER" ] || WINESERVER=$(command -v wineserver || echo wineserver)
build=${BUILD_DIR:-build-win}
started=$(date +%s)

say() { echo "wine-selftest: $*"; }

if [ ! -x "$WINE" ]; then
  say "no Wine at $WINE (install wine64, see scripts/setup.sh)"
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
  # Still run the self-test if its own two programs build, so a break
  # elsewhere (loader/...) does not hide the platform layer's results.
  build_ok=0
  say "BUILD FAILED (see above); building only the self-test's programs, to run them anyway"
  if ! meson compile -C "$build" tests/platform-selftest tests/helper-child; then
    say "the self-test does not build either"
    exit 1
  fi
fi
selftest="$root/$build/tests/platform-selftest.exe"
helper="$root/$build/tests/helper-child.exe"
for f in "$selftest" "$helper"; do
  if [ ! -f "$f" ]; then
    say "missing $f after the build"
    exit 1
  fi
done

# --- a fresh Wine prefix, removed (and its wineserver stopped) at exit ------
prefix=$(mktemp -d "${TMPDIR:-/tmp}/loadscope-wine.XXXXXX")
cleanup() {
  WINEPREFIX=$prefix timeout 30 "$WINESERVER" -k >/dev/null 2>&1
  rm -rf "$prefix"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export WINEPREFIX=$prefix
export WINEDEBUG=-all
# winedbg disabled: the children that crash on purpose would otherwise start
# Wine's debugger, which dumps registers on our stdout (the crash itself
# still ends the child with 0xC0000005). No Mono/Gecko installer prompts.
export WINEDLLOVERRIDES="winedbg.exe=d;mscoree,mshtml=;${WINEDLLOVERRIDES:-}"
export WINEARCH=win64

say "initialising the Wine prefix $prefix (first start: ~20-60 s)"
t0=$(date +%s)
timeout 300 "$WINE" wineboot --init </dev/null >/dev/null 2>&1
rc=$?
WINEPREFIX=$prefix timeout 120 "$WINESERVER" -w
if [ "$rc" -ne 0 ]; then
  say "wineboot failed (exit $rc$([ "$rc" -eq 124 ] && echo ', timed out after 300 s'))"
  exit 1
fi
say "prefix ready in $(( $(date +%s) - t0 )) s"

# The helper's path as Windows sees it: drive Z: is the Unix root.
helper_win="Z:${helper//\//\\}"

say "running platform-selftest.exe (children that crash on purpose make Wine print 'Unhandled page fault' lines)"
log=$(mktemp "${TMPDIR:-/tmp}/loadscope-wine-log.XXXXXX")
t0=$(date +%s)
# tr: the Windows C runtime ends lines with CR LF.
timeout 300 "$WINE" "$selftest" "$helper_win" </dev/null 2>&1 | tr -d '\r' | tee "$log"
rc=${PIPESTATUS[0]}
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
rm -f "$log"

if [ "$rc" -eq 124 ]; then
  say "TIMED OUT after 300 s"
elif [ -z "$summary" ]; then
  say "the self-test ended (exit $rc) without its summary line"
fi
if [ -z "$summary" ] && [ "$rc" -eq 0 ]; then rc=1; fi
if [ "$build_ok" -eq 0 ]; then
  say "the Windows build is broken (see the build errors above): counted as a failure"
  [ "$rc" -ne 0 ] || rc=1
fi
say "self-test took $(( $(date +%s) - t0 )) s, all in $(( $(date +%s) - started )) s: $([ "$rc" -eq 0 ] && echo PASS || echo "FAIL (exit $rc)")"
exit "$rc"
