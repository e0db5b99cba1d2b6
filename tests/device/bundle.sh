#!/usr/bin/env bash
# Makes the self-contained folder that runs the device check (or a remote
# target's runner) on a bare GPU machine: bin/ (the ELF files), lib/ (every
# shared library they need but the C runtime, see bundle-lib.sh), share/,
# wrappers and bundle-info.txt. Details: docs/device-check.md.
#
# Usage: bash tests/device/bundle.sh [--from BUILDDIR | --exe LOADSCOPE --worker W --probe DIR --schemas DIR]
#                                     [--out DIR] [--max-mb N]
#   --from    package an existing build folder's executables instead of building
#             build-device-bundle-src/ (CUDA, both sinks, JPEG, HDF5, no GUI)
#   --exe     package an installed loadscope, its worker, the probe and the
#             schema: what `loadscope remote install TARGET` does without --bundle
#   --out     where the bundle goes (default build-device-bundle/, git-ignored)
#   --max-mb  fail when the bundle is larger (default 60: a device call
#             carries 64 MiB at most; 0: no limit)
# Exit status: 0 made, 1 made but too large, 2 could not make it.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
FROM=
EXE= WORKER= PROBE=$ROOT/data/probe SCHEMAS=$ROOT/data
OUT_DIR=$ROOT/build-device-bundle
MAX_MB=60

# scripts/lib.sh: beside this file where it is installed (tests/device/meson.build).
lib=$HERE/lib.sh
[ -f "$lib" ] || lib=$ROOT/scripts/lib.sh
LS_TAG=bundle
. "$lib"
die() { warn "$*"; exit 2; } # 2, not lib.sh's 1: 1 is "made but too large"

while [ $# -gt 0 ]; do
  case "$1" in
    --from) FROM=${2:?--from needs a build folder}; shift 2 ;;
    --exe) EXE=${2:?--exe needs the loadscope executable}; shift 2 ;;
    --worker) WORKER=${2:?--worker needs the loadscope-worker executable}; shift 2 ;;
    --probe) PROBE=${2:?--probe needs the probe folder}; shift 2 ;;
    --schemas) SCHEMAS=${2:?--schemas needs a folder}; shift 2 ;;
    --out) OUT_DIR=${2:?--out needs a folder}; shift 2 ;;
    --max-mb) MAX_MB=${2:?--max-mb needs a number}; shift 2 ;;
    -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (usage: bundle.sh [--from BUILDDIR | --exe F --worker F --probe DIR --schemas DIR] [--out DIR] [--max-mb N])" ;;
  esac
done

command -v readelf >/dev/null || die "readelf not found (Debian: apt install binutils): it lists the libraries to bundle"

if [ -n "$EXE" ]; then
  [ -x "$EXE" ] && [ -n "$WORKER" ] && [ -x "$WORKER" ] || die "--exe and --worker need two executables ($EXE, $WORKER)"
  FROM=$(dirname "$EXE")
elif [ -z "$FROM" ]; then
  FROM=$ROOT/build-device-bundle-src
  command -v meson >/dev/null || die "meson is not installed (bash scripts/setup.sh installs what the build needs)"
  for d in /usr/local/cuda/bin /usr/local/cuda-*/bin /opt/cuda/bin; do
    command -v nvcc >/dev/null || [ ! -x "$d/nvcc" ] || export PATH=$d:$PATH
  done
  command -v nvcc >/dev/null || die "nvcc not found (PATH, /usr/local/cuda/bin): the bundle must have the CUDA sink"
  # Both CUDA sinks: the driver API's, and the runtime API's to compare it
  # with (LOADSCOPE_CUDA_API=runtime) until the device check has done so.
  opts=(-Dgui=disabled -Dcuda=enabled -Dcudart_sink=true -Dhdf5=enabled -Djpeg=enabled -Dbuildtype=debugoptimized)
  if [ -f "$FROM/meson-private/coredata.dat" ]; then
    meson setup --reconfigure "$FROM" "${opts[@]}" >/dev/null || die "meson setup --reconfigure $FROM failed"
  else
    (cd "$ROOT" && meson setup "$FROM" "${opts[@]}") >/dev/null || die "meson setup $FROM failed"
  fi
  log=$FROM/bundle-build.log
  compile() { meson compile -C "$FROM" app/loadscope loader/loadscope-worker tests/test-sink-cuda >"$log" 2>&1; }
  # Once more when nvcc refuses this host compiler's version.
  compile || { grep -q "unsupported GNU version\|unsupported clang version" "$log" &&
    warn "nvcc does not support this host compiler's version; retrying with -allow-unsupported-compiler" &&
    NVCC_APPEND_FLAGS="${NVCC_APPEND_FLAGS:-} -allow-unsupported-compiler" compile; } ||
    die "meson compile -C $FROM failed: $(grep -iE 'error' "$log" | head -n 3 | tr '\n' ' ')(log: $log)"
fi
FROM=$(cd "$FROM" && pwd) || die "no build folder $FROM"

exes=("$EXE" "$WORKER")
if [ -z "$EXE" ]; then
  exes=()
  for p in app/loadscope loader/loadscope-worker tests/test-sink-cuda; do
    [ -x "$FROM/$p" ] && exes+=("$FROM/$p") && continue
    [ "$p" = tests/test-sink-cuda ] || die "$FROM/$p is missing: build it first (meson compile -C $FROM $p)"
  done
fi

case "$OUT_DIR" in /*) ;; *) OUT_DIR=$(pwd)/$OUT_DIR ;; esac
[ "$OUT_DIR" != / ] && [ "$OUT_DIR" != "$ROOT" ] || die "refusing to replace $OUT_DIR"
rm -rf "$OUT_DIR"
mkdir -p "$OUT_DIR/bin" "$OUT_DIR/lib/gio-modules" "$OUT_DIR/share/loadscope/schemas" "$OUT_DIR/share/fonts"
cp "${exes[@]}" "$OUT_DIR/bin/"
# Debug info is most of their size and no use on the device.
! command -v strip >/dev/null || strip --strip-debug "$OUT_DIR"/bin/*

bash "$HERE/bundle-lib.sh" copy "$OUT_DIR/lib" "$OUT_DIR"/bin/* || die "could not gather the shared libraries"

# The settings schema, where app/core/settings.c looks beside the executable.
if [ -f "$SCHEMAS/gschemas.compiled" ]; then
  cp "$SCHEMAS/gschemas.compiled" "$OUT_DIR/share/loadscope/schemas/"
elif command -v glib-compile-schemas >/dev/null; then
  glib-compile-schemas --strict --targetdir "$OUT_DIR/share/loadscope/schemas" "$SCHEMAS" ||
    die "glib-compile-schemas failed on $SCHEMAS"
elif [ -f "$FROM/data/gschemas.compiled" ]; then
  cp "$FROM/data/gschemas.compiled" "$OUT_DIR/share/loadscope/schemas/"
else
  warn "no glib-compile-schemas and no compiled schema in $FROM/data: none bundled"
fi

# The PyTorch probe, where app/target/target-pytorch.c looks beside the
# executable (bin/../share/loadscope/probe): `--target pytorch` on a target
# machine (`sweep --on`) runs it under that machine's Python.
mkdir -p "$OUT_DIR/share/loadscope/probe/loadscope_probe"
cp "$PROBE"/loadscope_probe/*.py "$OUT_DIR/share/loadscope/probe/loadscope_probe/" || die "no probe in $PROBE"

# A font for the charts, found through a fontconfig file of the bundle's
# own (the system's fonts too, where there are any).
fonts=0
for f in DejaVuSans.ttf DejaVuSans-Bold.ttf; do
  for d in /usr/share/fonts/truetype/dejavu /usr/share/fonts/dejavu /usr/share/fonts/TTF; do
    [ -f "$d/$f" ] && cp "$d/$f" "$OUT_DIR/share/fonts/" && fonts=$((fonts + 1)) && break
  done
done
[ "$fonts" -gt 0 ] || warn "no DejaVu font found here: charts there use the system's fonts, if any"
cat >"$OUT_DIR/share/fonts.conf" <<'EOF'
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <dir prefix="relative">fonts</dir>
  <dir>/usr/share/fonts</dir>
  <cachedir prefix="xdg">loadscope-bundle-fontconfig</cachedir>
  <alias><family>sans-serif</family><prefer><family>DejaVu Sans</family></prefer></alias>
  <alias><family>sans</family><prefer><family>DejaVu Sans</family></prefer></alias>
</fontconfig>
EOF

cat >"$OUT_DIR/env.sh" <<'EOF'
# Sourced by the bundle's wrappers (made by tests/device/bundle.sh); $here is
# the bundle. The bundle's libraries come first; the system's GIO modules
# are kept out (they were built against another GLib).
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LOADSCOPE_WORKER="${LOADSCOPE_WORKER:-$here/bin/loadscope-worker}"
export GIO_MODULE_DIR="$here/lib/gio-modules"
export GIO_USE_VFS=local
export GSETTINGS_BACKEND="${GSETTINGS_BACKEND:-memory}"
export FONTCONFIG_FILE="$here/share/fonts.conf"
EOF
for e in "$OUT_DIR"/bin/*; do
  name=$(basename "$e")
  cat >"$OUT_DIR/$name" <<EOF
#!/bin/sh
# Runs bin/$name with the bundle's libraries (tests/device/bundle.sh).
here=\$(CDPATH= cd -- "\$(dirname -- "\$0")" && pwd) || exit 2
. "\$here/env.sh"
exec "\$here/bin/$name" "\$@"
EOF
  chmod +x "$OUT_DIR/$name"
done

# The newest glibc symbol version any file needs: the device's glibc must
# be at least that.
glibc_needed=$(for f in "$OUT_DIR"/bin/* "$OUT_DIR"/lib/*.so*; do
  objdump -T "$f" 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' || true
done | sed 's/GLIBC_//' | sort -V | tail -n 1)
cuda=no
grep -q "this build has no CUDA sink" "$OUT_DIR/bin/loadscope" || cuda=yes
cuda_runtime=no # the old runtime-API sink names its calls (the driver API's are cu*)
grep -q cudaStreamCreateWithFlags "$OUT_DIR/bin/loadscope" && cuda_runtime=yes
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
# (no git on the machine, or not a checkout: the commit is unknown, not an error)
dirty=$( (git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null || true) | head -n 1)
bytes=$(du -sb "$OUT_DIR" | cut -f1)
{
  echo "made=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit=$commit${dirty:+ (with uncommitted changes)}"
  echo "from=$FROM"
  echo "cuda=$cuda"
  echo "cuda_runtime=$cuda_runtime"
  echo "glibc_needed=${glibc_needed:-unknown}"
  echo "libraries=$(find "$OUT_DIR/lib" -maxdepth 1 -name '*.so*' | wc -l)"
  echo "size_bytes=$bytes"
} >"$OUT_DIR/bundle-info.txt"

mb=$(awk "BEGIN { printf \"%.1f\", $bytes / 1048576 }")
say "$OUT_DIR: $mb MiB ($bytes bytes), $(grep -c . <(ls "$OUT_DIR/lib"/*.so* 2>/dev/null)) libraries, CUDA $cuda, needs glibc >= ${glibc_needed:-?}"
if [ "$MAX_MB" != 0 ] && [ "$bytes" -gt $((MAX_MB * 1048576)) ]; then
  warn "too large: $mb MiB is over --max-mb $MAX_MB (a device call carries 64 MiB at most)"
  exit 1
fi
