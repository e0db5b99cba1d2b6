#!/usr/bin/env bash
# The Windows installer under Wine, in a throw-away prefix: msiexec /i installs
# per user (files, Start-menu shortcut, uninstall entry), the installed
# loadscope.exe runs (--version, then a sweep), msiexec /x removes it all.
#   test-msi-wine.sh INSTALLER [--version-only]       details: docs/windows.md
# --version-only: no sweep (an installer from a mock tree of the zip's shape).
# Ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
msi=$(cd "$(dirname "${1:?the .msi}")" && pwd)/$(basename "$1")
LS_TAG=msi-wine
. scripts/windows/wine-lib.sh msi
[ -f "$msi" ] || { bad "no installer $msi"; finish; }
wine_ready

# msi_exec /i|/x LOG: msiexec on the installer, quiet, then Wine settled
msi_exec() {
  local rc
  timeout 300 "$WINE" msiexec "$1" "$(win_path "$msi")" /qn </dev/null >"$2" 2>&1
  rc=$?
  timeout 60 "$WINESERVER" -w
  [ "$rc" -eq 0 ] && ok "msiexec $1 exits 0" || { bad "msiexec $1 exits $rc"; tail -n 15 "$2"; }
}

user=$(ls "$WINEPREFIX/drive_c/users" | grep -v -x -e Public -e public | head -n 1)
installed="$WINEPREFIX/drive_c/users/$user/AppData/Local/Programs/Loadscope"
code=$(msiinfo export "$msi" Property 2>/dev/null | sed -n 's/^ProductCode\t//p' | tr -d '\r')
say "installing $(basename "$msi") (product $code) for $user"

# 1. install
msi_exec /i "$tmp/install.log"
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
  if [ "${2:-}" != --version-only ]; then
    wine_run "$tmp/sweep.log" "" 600 "$exe" sweep --dataset synthetic --workers 0,1 --batches 10 --start spawn \
      --db "$(win_path "$tmp/msi-history.sqlite")" && ok "installed loadscope.exe runs a sweep of 2 configurations" ||
      { bad "installed loadscope.exe sweep exits $?"; tail -n 15 "$tmp/sweep.log"; }
  fi
fi

# 3. uninstall
msi_exec /x "$tmp/remove.log"
[ ! -e "$exe" ] && ok "bin\\loadscope.exe is gone" || bad "$exe is still there"
left=$(find "$installed" -type f 2>/dev/null | head -n 5)
[ -z "$left" ] && ok "nothing left under %LOCALAPPDATA%\\Programs\\Loadscope" || bad "left behind: $left"
[ -z "$lnk" ] || { [ ! -e "$lnk" ] && ok "the shortcut is gone" || bad "the shortcut is still there"; }
[ "$(entry)" -eq 0 ] && ok "the uninstall entry is gone" || bad "the uninstall entry is still there"
finish
