#!/usr/bin/env bash
# The Windows installer under Wine, in a throw-away prefix (as test-wine.sh):
#   1. msiexec /i INSTALLER /qn installs per user: bin\loadscope.exe under
#      %LOCALAPPDATA%\Programs\Loadscope, the Start-menu shortcut, and the
#      uninstall entry (HKCU ...\Uninstall\{ProductCode}, "Apps")
#   2. the installed loadscope.exe runs: --version, then (a real build, not
#      a mock tree) a two-configuration sweep on synthetic data
#   3. msiexec /x removes it: no loadscope.exe, no shortcut, no entry
#
#   test-msi-wine.sh INSTALLER [--version-only]
#
# --version-only: step 2 runs only --version (an installer built from a
# mock tree of the zip's shape). Ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
msi=$(cd "$(dirname "${1:?the .msi}")" && pwd)/$(basename "$1")
version_only=0
[ "${2:-}" = --version-only ] && version_only=1
passed=0
failed=0
LS_TAG=msi-wine
. scripts/lib.sh # say, die
ok() { passed=$((passed + 1)); say "ok: $*"; }
bad() { failed=$((failed + 1)); say "FAILED: $*"; }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

[ -f "$msi" ] || { bad "no installer $msi"; finish; }
. scripts/windows/wine-prefix.sh msi
wine_boot || { bad "no Wine prefix (wineboot failed twice, see above)"; finish; }

user=$(ls "$WINEPREFIX/drive_c/users" | grep -v -x -e Public -e public | head -n 1)
home="$WINEPREFIX/drive_c/users/$user"
installed="$home/AppData/Local/Programs/Loadscope"
code=$(msiinfo export "$msi" Property 2>/dev/null | sed -n 's/^ProductCode\t//p' | tr -d '\r')
say "installing $(basename "$msi") (product $code) for $user"

# 1. install
timeout 300 "$WINE" msiexec /i "$(win_path "$msi")" /qn </dev/null >"$tmp/install.log" 2>&1
rc=$?
timeout 60 "$WINESERVER" -w
[ "$rc" -eq 0 ] && ok "msiexec /i exits 0" || { bad "msiexec /i exits $rc"; tail -n 15 "$tmp/install.log"; }
exe="$installed/bin/loadscope.exe"
[ -f "$exe" ] && ok "installed bin\\loadscope.exe under %LOCALAPPDATA%\\Programs\\Loadscope" ||
  bad "no $exe after install ($(find "$WINEPREFIX/drive_c" -name loadscope.exe 2>/dev/null | head -n 3))"
lnk=$(find "$WINEPREFIX/drive_c" -iname 'Loadscope.lnk' -path '*Start Menu*' 2>/dev/null | head -n 1)
[ -n "$lnk" ] && ok "Start-menu shortcut ${lnk#"$WINEPREFIX/drive_c/"}" || bad "no Loadscope.lnk in a Start Menu folder"
uninstall_key='HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall'
entry() {
  { timeout 60 "$WINE" reg query "$uninstall_key\\$code" /v DisplayName </dev/null
    timeout 60 "$WINE" reg query "${uninstall_key/HKCU/HKLM}\\$code" /v DisplayName </dev/null; } 2>/dev/null | tr -d '\r' | grep -c 'DisplayName.*Loadscope'
}
[ "$(entry)" -ge 1 ] && ok "uninstall entry $code says Loadscope" || bad "no uninstall entry for $code"

# 2. run it
if [ -f "$exe" ]; then
  out=$(timeout 120 "$WINE" "$exe" --version </dev/null 2>&1 | tr -d '\r')
  grep -q 'loadscope' <<<"$out" && ok "installed loadscope.exe --version: $(head -n 1 <<<"$out")" ||
    bad "installed loadscope.exe --version said: $out"
  if [ "$version_only" -eq 0 ]; then
    db=$(win_path "$tmp/msi-history.sqlite")
    out=$(timeout 600 "$WINE" "$exe" sweep --dataset synthetic --workers 0,1 --batches 10 --start spawn \
      --db "$db" </dev/null 2>&1 | tr -d '\r')
    rc=$?
    [ "$rc" -eq 0 ] && ok "installed loadscope.exe runs a sweep of 2 configurations" ||
      { bad "installed loadscope.exe sweep exits $rc"; tail -n 15 <<<"$out"; }
  fi
fi

# 3. uninstall
timeout 300 "$WINE" msiexec /x "$(win_path "$msi")" /qn </dev/null >"$tmp/remove.log" 2>&1
rc=$?
timeout 60 "$WINESERVER" -w
[ "$rc" -eq 0 ] && ok "msiexec /x exits 0" || { bad "msiexec /x exits $rc"; tail -n 15 "$tmp/remove.log"; }
[ ! -e "$exe" ] && ok "bin\\loadscope.exe is gone" || bad "$exe is still there"
left=$(find "$installed" -type f 2>/dev/null | head -n 5)
[ -z "$left" ] && ok "nothing left under %LOCALAPPDATA%\\Programs\\Loadscope" || bad "left behind: $left"
[ -z "$lnk" ] || { [ ! -e "$lnk" ] && ok "the shortcut is gone" || bad "the shortcut is still there"; }
[ "$(entry)" -eq 0 ] && ok "the uninstall entry is gone" || bad "the uninstall entry is still there"
finish
