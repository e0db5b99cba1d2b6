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

# Creates the prefix and waits for Wine to settle; wineboot's exit status
# (124: it timed out).
wine_boot() {
  local rc
  timeout 300 "$WINE" wineboot --init </dev/null >/dev/null 2>&1
  rc=$?
  timeout 120 "$WINESERVER" -w
  return $rc
}
