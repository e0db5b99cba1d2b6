# shellcheck shell=bash
# Sourced by the Wine tests (with scripts/lib.sh; set LS_TAG first): a
# throw-away Wine prefix in $tmp, removed with its wineserver on exit;
# win_path, wine_ready, wine_run, and the tally ok/bad/finish.
#   . scripts/windows/wine-lib.sh NAME                details: docs/windows.md
. scripts/lib.sh
WINE=${WINE:-/usr/lib/wine/wine64}
WINESERVER=${WINESERVER:-$(dirname "$WINE")/wineserver}
[ -x "$WINESERVER" ] || WINESERVER=$(command -v wineserver || echo wineserver)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/loadscope-$1.XXXXXX")
export WINEPREFIX=$tmp/wineprefix
cleanup() {
  timeout 30 "$WINESERVER" -k >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# winedbg off: children that crash on purpose must not start Wine's debugger
export WINEDEBUG=-all WINEARCH=win64
export WINEDLLOVERRIDES="winedbg.exe=d;mscoree,mshtml=;${WINEDLLOVERRIDES:-}"

passed=0
failed=0
ok() { passed=$((passed + 1)); say "ok: $*"; }
bad() { failed=$((failed + 1)); say "FAILED: $*"; }
# The summary line scripts/test.sh counts; the exit status says any failure.
finish() {
  say "took $SECONDS s"
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
}

# A Linux path as Wine's Z: drive sees it.
win_path() { local p=$1; echo "Z:${p//\//\\}"; }

# wine_ready: creates the prefix and waits for Wine to settle. A boot that
# fails or leaves no Z: drive is tried once more in a new folder, the failed
# one kept until exit so that its inode is not reused (docs/windows.md); a
# second failure is counted and the summary printed (exit 1).
wine_ready() {
  local rc try why t0=$SECONDS
  say "booting the Wine prefix $WINEPREFIX (first start: ~20-60 s)"
  for try in 1 2; do
    timeout 300 "$WINE" wineboot --init </dev/null >"$tmp/wineboot.log" 2>&1
    rc=$?
    timeout 120 "$WINESERVER" -w
    if [ "$rc" -eq 0 ] && [ -e "$WINEPREFIX/dosdevices/z:" ]; then
      say "Wine prefix ready in $((SECONDS - t0)) s ($("$WINE" --version 2>/dev/null))"
      return 0
    fi
    why="exit $rc"
    [ "$rc" -ne 124 ] || why+=", timed out after 300 s"
    [ -e "$WINEPREFIX/dosdevices/z:" ] || why+=", no Z: drive"
    warn "wineboot in $WINEPREFIX failed ($why)"
    tail -n 20 "$tmp/wineboot.log" | sed 's/^/    /' >&2
    [ "$try" -eq 1 ] || break
    warn "stopping its wineserver and booting a new prefix once more"
    timeout 30 "$WINESERVER" -k >/dev/null 2>&1
    export WINEPREFIX=$tmp/wineprefix-again
  done
  bad "no Wine prefix (wineboot failed twice, see above)"
  finish
}

# wine_run OUT ERR LIMIT PROGRAM ARGS...: PROGRAM under Wine, bounded, stdout
# in OUT, stderr in ERR (empty: OUT; both appended, so they interleave as
# 2>&1 would), CR LF made LF; its status. One whose spawn Wine failed with
# EINVAL (under load, now and then) runs once more, saying so.
wine_spawn_failed='Failed to execute (helper program|child process) \(Invalid argument\)'
wine_run() {
  local out=$1 err=${2:-$1} limit=$3 rc try name
  shift 3
  name=${out##*/}
  for try in 1 2; do
    rm -f "$out" "$err"
    timeout "$limit" "$WINE" "$@" </dev/null >>"$out" 2>>"$err"
    rc=$?
    sed -i 's/\r$//' "$out" "$err"
    if [ "$try" -eq 2 ] || [ "$rc" -eq 0 ] || ! grep -Eq "$wine_spawn_failed" "$out" "$err"; then
      break
    fi
    say "${name%.*}: Wine failed to start a process ($(grep -Eoh "$wine_spawn_failed" "$out" "$err" | head -n 1)); running it once more"
  done
  return "$rc"
}
