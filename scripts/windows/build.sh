#!/usr/bin/env bash
# Builds Loadscope for Windows (mingw-w64, -Dwerror=true) over the dependency
# stack of scripts/windows/deps.sh and packs dist/loadscope-VERSION-win64.zip.
#   bash scripts/windows/build.sh [--gui] [--no-zip]  details: docs/windows.md
# --gui: with the window (GTK 4, libadwaita); --no-zip: build only. Build
# folder: build-win (BUILD_DIR). Prints each stage's time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
build=${BUILD_DIR:-build-win}
H=x86_64-w64-mingw32
SYSROOT=/usr/$H
cache=${LS_CACHE:-$HOME/.cache/loadscope}
jobs=${LS_JOBS:-2}
LS_TAG=win-build
. "$root/scripts/lib.sh"
stage_t0=0
stage() { say "$1: $((SECONDS - stage_t0)) s"; stage_t0=$SECONDS; }

gui=0
zip=1
for a in "$@"; do
  case "$a" in
    --gui) gui=1 ;;
    --no-zip) zip=0 ;;
    *) say "unknown argument $a (--gui, --no-zip)"; exit 2 ;;
  esac
done

# --- the dependency stack ---------------------------------------------------------
if [ "$gui" -eq 1 ] && ! bash "$here/deps.sh" --gui; then
  say "the GUI stack could not be built (see above): building the command line only"
  gui=0
fi
stack=()
[ "$gui" -eq 0 ] || stack=(--gui)
[ "$gui" -eq 1 ] || bash "$here/deps.sh"
P=$(bash "$here/deps.sh" --prefix "${stack[@]}")
stage "dependency stack ($([ "$gui" -eq 1 ] && echo 'command line + GUI' || echo 'command line'))"
while read -r line; do
  [ -n "$line" ] && say "built without ${line}"
done < "$P/.loadscope/missing"

# --- configure and build -------------------------------------------------------------
mkdir -p "$cache/win-build"
cross=$cache/win-build/loadscope-cross.ini
gcc_dir=$(dirname "$($H-gcc -print-libgcc-file-name)")
winpath=$(printf 'Z:%s/bin;Z:%s/lib;Z:%s' "$P" "$SYSROOT" "$gcc_dir" | tr / '\\')
cat > "$cache/win-build/loadscope-wine" <<W
#!/bin/sh
# meson's exe_wrapper for build-win: Windows programs under Wine, finding
# the stack's DLLs.
export WINEDEBUG=\${WINEDEBUG:--all}
export WINEPATH='$winpath'
exec /usr/lib/wine/wine64 "\$@"
W
chmod +x "$cache/win-build/loadscope-wine"
cat > "$cross" <<C
# Written by scripts/windows/build.sh: the stack in $P
[binaries]
c = '$H-gcc'
ar = '$H-ar'
strip = '$H-strip'
windres = '$H-windres'
pkgconfig = ['pkg-config', '--define-prefix']
exe_wrapper = ['$cache/win-build/loadscope-wine']

[built-in options]
# the stack's headers as system headers (as /usr/include is natively): no
# warnings of theirs under -Werror
c_args = ['-isystem', '$P/include']

[properties]
pkg_config_libdir = ['$P/lib/pkgconfig', '$P/share/pkgconfig', '$SYSROOT/lib/pkgconfig']

[host_machine]
system = 'windows'
cpu_family = 'x86_64'
cpu = 'x86_64'
endian = 'little'
C
opts=(-Dwerror=true -Dcuda=auto "-Dgui=$([ "$gui" -eq 1 ] && echo enabled || echo disabled)")
grep -q '^libjpeg-turbo ' "$P/.loadscope/missing" && opts+=(-Djpeg=disabled) || opts+=(-Djpeg=enabled)
grep -q '^hdf5 ' "$P/.loadscope/missing" && opts+=(-Dhdf5=disabled) || opts+=(-Dhdf5=enabled)
want="$(sha256sum < "$cross" | cut -c1-16) ${opts[*]}"
if [ ! -f "$build/build.ninja" ] || [ "$(cat "$build/.loadscope-config" 2>/dev/null)" != "$want" ]; then
  rm -rf "$build"
  say "configuring $build: ${opts[*]}"
  meson setup "$build" --cross-file "$cross" "${opts[@]}"
  echo "$want" > "$build/.loadscope-config"
fi
meson compile -C "$build" -j "$jobs"
stage "Loadscope built ($build)"
[ "$zip" -eq 1 ] || { say "done in $SECONDS s"; exit 0; }

# --- the zip ----------------------------------------------------------------------------
version=$(meson introspect "$build" --projectinfo | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')
name=loadscope-$version-win64
stagedir=$root/dist/$name
rm -rf "$stagedir" "$root/dist/$name.zip"
mkdir -p "$stagedir"/bin "$stagedir"/share/{locale,glib-2.0/schemas} \
  "$stagedir"/share/loadscope/{schemas,probe/loadscope_probe}
cp "$build/app/loadscope.exe" "$build/loader/loadscope-worker.exe" "$stagedir/bin/"
# The PyTorch probe (--target pytorch), found at ../share/loadscope/probe.
cp data/probe/loadscope_probe/*.py "$stagedir/share/loadscope/probe/loadscope_probe/"
# The translations (po/), found at ../share/locale (app/core/i18n.c).
(cd "$build/po" && find . -mindepth 3 -maxdepth 3 -path './*/LC_MESSAGES/loadscope.mo' \
   -exec cp --parents -t "$stagedir/share/locale" {} +)
# GSubprocess starts programs through these helpers, found beside libglib.
cp "$P/bin/gspawn-win64-helper.exe" "$P/bin/gspawn-win64-helper-console.exe" "$stagedir/bin/"

# Windows' own DLLs (and the API sets), never shipped.
system_dll() {
  case "${1,,}" in
    api-ms-win-*|ext-ms-*) return 0 ;;
    kernel32.dll|user32.dll|gdi32.dll|advapi32.dll|shell32.dll|ole32.dll|oleaut32.dll|ws2_32.dll|msvcrt.dll|\
    shlwapi.dll|dnsapi.dll|iphlpapi.dll|bcrypt.dll|dwmapi.dll|imm32.dll|comctl32.dll|comdlg32.dll|winmm.dll|\
    setupapi.dll|uxtheme.dll|usp10.dll|msimg32.dll|ntdll.dll|crypt32.dll|cfgmgr32.dll|hid.dll|dwrite.dll|\
    d2d1.dll|d3d11.dll|dxgi.dll|opengl32.dll|winspool.drv|version.dll|psapi.dll|userenv.dll|secur32.dll|\
    netapi32.dll|rpcrt4.dll|mswsock.dll|powrprof.dll|dbghelp.dll|wtsapi32.dll|mpr.dll|normaliz.dll) return 0 ;;
  esac
  return 1
}
search=("$P/bin" "$SYSROOT/lib" "$gcc_dir")
declare -A seen
missing=()
queue=("$stagedir"/bin/*.exe)
for ((i = 0; i < ${#queue[@]}; i++)); do
  while read -r dll; do
    { [ -n "${seen[${dll,,}]:-}" ] || system_dll "$dll"; } && continue
    seen[${dll,,}]=1
    found=$(find "${search[@]}" -maxdepth 1 -type f -name "$dll" -print -quit 2>/dev/null)
    if [ -z "$found" ]; then
      missing+=("$dll (imported by $(basename "${queue[i]}"))")
    else
      cp "$found" "$stagedir/bin/$dll"
      queue+=("$stagedir/bin/$dll")
    fi
  done < <($H-objdump -p "${queue[i]}" | sed -n 's/^\s*DLL Name: //p' | tr -d '\r')
done
[ ${#missing[@]} -eq 0 ] || die "DLLs imported but found nowhere: ${missing[*]}"
$H-strip --strip-unneeded "$stagedir"/bin/*.exe "$stagedir"/bin/*.dll

# Schemas: Loadscope's beside itself (share/loadscope/schemas), GLib's and
# GTK's where GLib looks on Windows (bin/../share/glib-2.0/schemas).
# Windows' own defaults over the schema's: workers are spawned (no fork).
printf '[org.loadscope.Loadscope]\nstart-methods='"'spawn'"'\n' > "$stagedir/share/loadscope/schemas/90_loadscope-windows.gschema.override"
cp data/org.loadscope.Loadscope.gschema.xml "$stagedir/share/loadscope/schemas/"
glib-compile-schemas --strict "$stagedir/share/loadscope/schemas"
cp data/org.loadscope.Loadscope.gschema.xml "$stagedir/share/loadscope/schemas/90_loadscope-windows.gschema.override" "$stagedir/share/glib-2.0/schemas/"
cp "$P"/share/glib-2.0/schemas/*.xml "$stagedir/share/glib-2.0/schemas/" 2>/dev/null || true
glib-compile-schemas "$stagedir/share/glib-2.0/schemas"
if [ "$gui" -eq 1 ]; then
  mkdir -p "$stagedir/share/icons/Adwaita"
  cp -r data/icons/hicolor "$stagedir/share/icons/"
  # The symbolic icons the window names come from the desktop's theme on
  # Linux; Windows has none. Debian's Adwaita pre-renders them as PNG, which
  # GTK draws without an SVG loader: 16 px, and 32 px for scale 2.
  adw_icons=/usr/share/icons/Adwaita
  [ -f "$adw_icons/index.theme" ] || die "no Adwaita icon theme in $adw_icons (package adwaita-icon-theme)"
  (cd "$adw_icons" && find 16x16 32x32 -name '*.symbolic.png' -print0 |
     xargs -0 cp --parents -t "$stagedir/share/icons/Adwaita")
  cp "$adw_icons/index.theme" "$stagedir/share/icons/Adwaita/"
  cp /usr/share/doc/adwaita-icon-theme/copyright "$stagedir/share/icons/Adwaita/COPYING" 2>/dev/null || true
fi

# Which Debian version of each library, and which of Debian's patches it has.
{
  echo "The libraries in bin\\, cross-built from Debian 12's source packages"
  echo "(scripts/windows/deps.sh), with the Debian patches applied as said:"
  echo
  cat "$P/.loadscope/patches" 2>/dev/null || echo "(this stack did not record its patches)"
} | sed 's/$/\r/' > "$stagedir/share/loadscope/libraries.txt"

ndll=$(ls "$stagedir"/bin/*.dll | wc -l)
sed 's/$/\r/' > "$stagedir/README.txt" <<R
Loadscope $version for Windows (x86_64)

Unzip anywhere (paths with spaces or non-ASCII characters are fine) and run
from a terminal (cmd or PowerShell):

  bin\\loadscope.exe --help
  bin\\loadscope.exe make-dataset --format jpeg-dir --count 2000 C:\\data\\imgs
  bin\\loadscope.exe run --dataset C:\\data\\imgs --workers 2 --start spawn --json
  bin\\loadscope.exe sweep --dataset synthetic --workers 0,1,2 --start spawn
  bin\\loadscope.exe history
$([ "$gui" -eq 1 ] && echo '  bin\loadscope.exe                 (no arguments: the workbench window)')

Nothing else needs installing: the $ndll DLLs in bin\\ are all it loads
besides Windows' own. Workers are loadscope-worker.exe processes (start
method spawn; fork does not exist on Windows) in a job object that ends them
with the runner. Runs are recorded in %LOCALAPPDATA%\\loadscope\\history.sqlite.
The GPU is used through the NVIDIA driver (nvcuda.dll) where it answers with
a device; elsewhere the GPU is simulated, clearly labelled, saying why. NVML
(nvml.dll) is read where the driver provides it. Built $(date -u +%F) from
the Loadscope sources with mingw-w64; the libraries are built from Debian
12's sources with Debian's patches (share\\loadscope\\libraries.txt says which).
$([ "$gui" -eq 1 ] || echo 'This build has no window (command line only).')
R
(cd "$root/dist" && zip -q -r -9 "$name.zip" "$name")
stage "zip packed: dist/$name.zip, $(du -k "$root/dist/$name.zip" | cut -f1) KiB, $ndll DLLs"
say "done in $SECONDS s"
