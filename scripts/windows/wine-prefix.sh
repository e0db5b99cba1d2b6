# Sourced by the Wine tests: a throw-away Wine prefix in a temporary folder
# ($tmp, named after $1), removed with its wineserver on exit; win_path.
#   . scripts/windows/wine-prefix.sh NAME
WINE=${WINE:-/usr/lib/wine/wine64}
WINESERVER=${WINESERVER:-$(dirname "$WINE")/wineserver}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/loadscope-$1.XXXXXX")
export WINEPREFIX=$tmp/wineprefix
cleanup() {
  timeout 30 "$WINESERVER" -k >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
export WINEDEBUG=-all WINEARCH=win64
export WINEDLLOVERRIDES="winedbg.exe=d;mscoree,mshtml=;${WINEDLLOVERRIDES:-}"

# A Linux path as Wine's Z: drive sees it.
win_path() { local p=$1; echo "Z:${p//\//\\}"; }

# Creates the prefix and waits for Wine to settle. A boot that fails, or
# that leaves no Z: drive (without it every Unix path fails, exit 53), is
# tried once more in a second prefix folder after its wineserver is
# stopped, saying so: in one CI run a boot right after the self-tests'
# prefix went failed at once. The failed folder stays until exit, so the
# second cannot reuse its inode (Wine finds its server by the prefix's
# device and inode). Returns 0, or wineboot's status (124: it timed out; 1
# where it said 0 but made no Z: drive); on failure prints its last lines.
wine_boot() {
  local rc try
  for try in 1 2; do
    timeout 300 "$WINE" wineboot --init </dev/null >"$tmp/wineboot.log" 2>&1
    rc=$?
    timeout 120 "$WINESERVER" -w
    if [ "$rc" -eq 0 ] && [ -e "$WINEPREFIX/dosdevices/z:" ]; then
      return 0
    fi
    [ "$rc" -ne 0 ] || rc=1
    echo "wine-prefix: wineboot in $WINEPREFIX failed (exit $rc$([ -e "$WINEPREFIX/dosdevices/z:" ] || echo ', no Z: drive'))" >&2
    tail -n 20 "$tmp/wineboot.log" | sed 's/^/    /' >&2
    [ "$try" -eq 1 ] || break
    echo "wine-prefix: stopping its wineserver and booting a new prefix once more" >&2
    timeout 30 "$WINESERVER" -k >/dev/null 2>&1
    export WINEPREFIX=$tmp/wineprefix-again
  done
  return "$rc"
}
