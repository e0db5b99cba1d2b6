#!/usr/bin/env bash
# Cross-builds Loadscope's Windows dependency stack with mingw-w64 from
# Debian 12's source packages (apt-source.sh), Debian's patches applied, into
# a prefix cached under ~/.cache/loadscope. What it builds, how, and the
# measured times: docs/windows.md.
#
#   deps.sh                    the command-line stack
#   deps.sh --gui              that, then the GUI stack (GTK 4, libadwaita) over it
#   deps.sh --prefix [--gui]   print the cached prefix, or nothing (exit 1)
#
# Environment: LS_CACHE (default ~/.cache/loadscope), LS_JOBS (make/ninja
# jobs per package, default 2), LS_SLOTS (packages side by side, default 2).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${LS_CACHE:-$HOME/.cache/loadscope}
jobs=${LS_JOBS:-2}
H=x86_64-w64-mingw32
SYSROOT=/usr/$H
WINE=${WINE:-/usr/lib/wine/wine64}
src_dir=$cache/win-src
work_root=$cache/win-build

# In the order they are started when ready: the longest chain (libintl, GLib,
# HarfBuzz, pango) first, the others beside it. Optional packages that fail
# are left out (listed in PREFIX/.loadscope/missing); the GUI stack is left
# out whole when one of its packages fails.
cli_pkgs=(gettext pcre2 libffi libpng1.6 pixman glib2.0 harfbuzz cairo fribidi pango1.0 hdf5 json-glib libjpeg-turbo sqlite3)
gui_pkgs=(graphene libepoxy tiff gdk-pixbuf gtk4 libadwaita-1)
optional_pkgs=" libjpeg-turbo hdf5 "

LS_TAG=win-deps
. "$here/../lib.sh" # say, die

want_gui=0
print_prefix=0
for a in "$@"; do
  case "$a" in
    --gui) want_gui=1 ;;
    --prefix) print_prefix=1 ;;
    *) die "unknown argument $a (--gui, --prefix)" ;;
  esac
done

# --- versions and keys --------------------------------------------------------
declare -A version orig
all=("${cli_pkgs[@]}")
[ "$want_gui" -eq 0 ] || all+=("${gui_pkgs[@]}")
listing=$(bash "$here/apt-source.sh" list "${all[@]}") || die "cannot list the source packages"
while read -r p v o; do version[$p]=$v; orig[$p]=$o; done <<< "$listing"
version[zlib]=$(dpkg-query -W -f='${Version}' libz-mingw-w64-dev 2>/dev/null) ||
  die "libz-mingw-w64-dev is not installed (bash scripts/setup.sh --tests)"
scripts_hash=$(cat "$here/deps.sh" "$here/apt-source.sh" | sha256sum | cut -c1-12)
key_of() { # key_of PKG...: versions of these packages + the scripts
  local p
  { echo "$scripts_hash"; for p in "$@"; do echo "$p ${version[$p]}"; done; } | sha256sum | cut -c1-16
}
cli_key=$(key_of zlib "${cli_pkgs[@]}")
cli_prefix=$cache/win-deps-cli-$cli_key
if [ "$want_gui" -eq 1 ]; then
  gui_key=$(echo "$cli_key $(key_of "${gui_pkgs[@]}")" | sha256sum | cut -c1-16)
  gui_prefix=$cache/win-deps-gui-$gui_key
fi

if [ "$print_prefix" -eq 1 ]; then
  p=$cli_prefix
  [ "$want_gui" -eq 0 ] || p=$gui_prefix
  [ -e "$p/.loadscope/complete" ] || exit 1
  echo "$p"
  exit 0
fi

# --- the toolchain files for one prefix ------------------------------------------
# write_toolchain P: cross files for meson and CMake, a Wine wrapper, an
# autotools environment, all under $work_root/toolchain.
tc=$work_root/toolchain
write_toolchain() {
  local P=$1
  mkdir -p "$tc" "$tc/include-extra/sys"
  # HDF5's H5private.h includes sys/wait.h when unistd.h exists; mingw-w64
  # has no sys/wait.h and HDF5's src/ uses nothing from it.
  : > "$tc/include-extra/sys/wait.h"
  local winpath
  winpath=$(printf 'Z:%s/bin;Z:%s/lib' "$P" "$SYSROOT" | tr / '\\\\')
  cat > "$tc/wine" <<W
#!/bin/sh
# Runs a freshly built Windows program (meson's exe_wrapper, CMake's
# cross-compiling emulator) in the build's own Wine prefix.
export WINEPREFIX="$work_root/wineprefix" WINEDEBUG=-all WINEARCH=win64
export WINEDLLOVERRIDES="winedbg.exe=d;mscoree,mshtml="
export WINEPATH='$winpath'

exec "$WINE" "\$@"
W
  chmod +x "$tc/wine"
  cat > "$tc/cross.ini" <<C
[binaries]
c = '$H-gcc'
cpp = '$H-g++'
ar = '$H-ar'
strip = '$H-strip'
windres = '$H-windres'
nm = '$H-nm'
pkgconfig = ['pkg-config', '--define-prefix']
exe_wrapper = ['$tc/wine']

[properties]
pkg_config_libdir = ['$P/lib/pkgconfig', '$P/share/pkgconfig', '$SYSROOT/lib/pkgconfig']

[built-in options]
c_args = ['-I$P/include']
cpp_args = ['-I$P/include']
c_link_args = ['-L$P/lib']
cpp_link_args = ['-L$P/lib', '-static-libgcc', '-static-libstdc++']

[host_machine]
system = 'windows'
cpu_family = 'x86_64'
cpu = 'x86_64'
endian = 'little'
C
  cat > "$tc/toolchain.cmake" <<C
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR AMD64)
set(CMAKE_C_COMPILER $H-gcc)
set(CMAKE_CXX_COMPILER $H-g++)
set(CMAKE_RC_COMPILER $H-windres)
set(CMAKE_ASM_NASM_COMPILER nasm)
set(CMAKE_FIND_ROOT_PATH $P $SYSROOT)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR $tc/wine)
C
}

# Environment of autotools builds (configure --host).
autotools_env() {
  local P=$1
  export CC=$H-gcc CXX=$H-g++ AR=$H-ar RANLIB=$H-ranlib STRIP=$H-strip WINDRES=$H-windres RC=$H-windres
  export CPPFLAGS="-I$P/include" CFLAGS="-O2" LDFLAGS="-L$P/lib"
  export PKG_CONFIG="pkg-config --define-prefix"
  export PKG_CONFIG_LIBDIR="$P/lib/pkgconfig:$P/share/pkgconfig:$SYSROOT/lib/pkgconfig"
  export PKG_CONFIG_PATH=
}
configure_host() { ./configure --host=$H --build=x86_64-pc-linux-gnu --prefix="$P" --enable-shared --disable-static "$@"; }
meson_build() { # meson_build [OPTIONS]: in src/, build dir _b
  meson setup _b . --cross-file "$tc/cross.ini" --prefix "$P" --libdir lib \
    --buildtype release -Ddefault_library=shared -Dwrap_mode=nodownload "$@"
  meson compile -C _b -j "$jobs"
  meson install -C _b --no-rebuild --quiet
}
cmake_build() { # cmake_build [OPTIONS]: configured from inside _b (HDF5 writes into the cwd)
  mkdir -p _b
  (cd _b && cmake .. -G Ninja -DCMAKE_TOOLCHAIN_FILE="$tc/toolchain.cmake" \
     -DCMAKE_INSTALL_PREFIX="$P" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_LIBDIR=lib "$@")
  ninja -C _b -j "$jobs" install
}

# --- recipes (run in the unpacked source, P = the prefix) ---------------------------
build_libffi() {
  autotools_env "$P"
  configure_host --disable-docs --disable-multi-os-directory
  make -j"$jobs" && make install
}
build_pcre2() {
  autotools_env "$P"
  configure_host --enable-pcre2-8 --disable-pcre2-16 --disable-pcre2-32 --enable-jit --enable-unicode
  make -j"$jobs" && make install
}
build_gettext() { # libintl only (gettext-runtime/intl); NLS on, else nothing is installed
  autotools_env "$P"
  cd gettext-runtime
  configure_host --enable-threads=windows --disable-java --disable-csharp --disable-libasprintf \
    --disable-openmp --disable-curses
  make -C intl -j"$jobs" && make -C intl install
}
build_glib2_0() {
  meson_build -Dtests=false -Dnls=enabled -Dman=false -Dgtk_doc=false -Dsysprof=disabled \
    -Dlibelf=disabled -Dinstalled_tests=false
}
build_json_glib() {
  meson_build -Dintrospection=disabled -Dgtk_doc=disabled -Dtests=false -Dman=false
}
build_sqlite3() { # the amalgamation made natively (tclsh), then one DLL
  mkdir -p _native && (cd _native && ../configure --disable-tcl >/dev/null && make sqlite3.c)
  local defs=(-DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_COLUMN_METADATA -DSQLITE_ENABLE_MATH_FUNCTIONS
              -DSQLITE_ENABLE_DBSTAT_VTAB -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_RTREE -DSQLITE_DQS=0)
  $H-gcc -O2 -shared "${defs[@]}" _native/sqlite3.c -o "$P/bin/libsqlite3-0.dll" \
    -Wl,--out-implib,"$P/lib/libsqlite3.dll.a"
  install -m644 _native/sqlite3.h sqlite3ext.h "$P/include/" 2>/dev/null ||
    install -m644 _native/sqlite3.h src/sqlite3ext.h "$P/include/"
  local v; v=$(cat VERSION)
  printf 'prefix=%s\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\n\nName: SQLite\nDescription: SQL database engine\nVersion: %s\nLibs: -L${libdir} -lsqlite3\nCflags: -I${includedir}\n' \
    "$P" "$v" > "$P/lib/pkgconfig/sqlite3.pc"
}
build_libpng1_6() {
  cmake_build -DPNG_SHARED=ON -DPNG_STATIC=OFF -DPNG_TESTS=OFF -DPNG_EXECUTABLES=OFF
}
build_pixman() {
  meson_build -Dgtk=disabled -Dlibpng=disabled -Dopenmp=disabled -Dtests=disabled
}
build_cairo() {
  autotools_env "$P"
  # -Wp,-D_FORTIFY_SOURCE=2 needs libssp with mingw-w64.
  sed -i 's/-Wp,-D_FORTIFY_SOURCE=2//' configure
  configure_host --enable-win32 --enable-win32-font --enable-png --enable-gobject \
    --disable-xlib --disable-xcb --disable-ft --disable-fc --disable-gl --disable-script \
    --disable-interpreter --disable-trace --disable-symbol-lookup --disable-full-testing \
    --disable-gtk-doc
  make -C src -j"$jobs" && make -C src install
  make -C util/cairo-gobject -j"$jobs" && make -C util/cairo-gobject install
}
build_fribidi() {
  meson_build -Ddocs=false
}
build_harfbuzz() {
  meson_build -Dglib=enabled -Dgobject=disabled -Dcairo=disabled -Dicu=disabled -Dfreetype=disabled \
    -Dtests=disabled -Dintrospection=disabled -Ddocs=disabled -Dbenchmark=disabled
}
build_pango1_0() {
  meson_build -Dfontconfig=disabled -Dfreetype=disabled -Dlibthai=disabled -Dxft=disabled \
    -Dcairo=enabled -Dintrospection=disabled -Dgtk_doc=false
}
build_libjpeg_turbo() {
  # its own GNUInstallDirs takes a relative libdir as relative to the build folder
  cmake_build -DENABLE_STATIC=OFF -DENABLE_SHARED=ON -DWITH_TURBOJPEG=ON -DWITH_JAVA=OFF -DCMAKE_INSTALL_LIBDIR="$P/lib"
}
build_hdf5() {
  cmake_build -DBUILD_SHARED_LIBS=ON -DONLY_SHARED_LIBS=ON -DBUILD_STATIC_LIBS=OFF -DBUILD_TESTING=OFF \
    -DHDF5_BUILD_TOOLS=OFF -DHDF5_BUILD_UTILS=OFF -DHDF5_BUILD_EXAMPLES=OFF -DHDF5_BUILD_FORTRAN=OFF \
    -DHDF5_BUILD_CPP_LIB=OFF -DHDF5_BUILD_JAVA=OFF -DHDF5_BUILD_HL_LIB=OFF -DHDF5_ENABLE_Z_LIB_SUPPORT=ON \
    -DHDF5_ENABLE_SZIP_SUPPORT=OFF -DCMAKE_C_FLAGS="-I$tc/include-extra"
  # meson's dependency('hdf5') asks pkg-config for "hdf5"
  local v=${version[hdf5]%%+*}
  printf 'prefix=%s\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\n\nName: hdf5\nDescription: HDF5 (C library)\nVersion: %s\nLibs: -L${libdir} -lhdf5\nCflags: -I${includedir}\n' \
    "$P" "$v" > "$P/lib/pkgconfig/hdf5.pc"
}
build_graphene() {
  meson_build -Dgobject_types=true -Dintrospection=disabled -Dtests=false -Dinstalled_tests=false
}
build_libepoxy() {
  meson_build -Dglx=no -Degl=no -Dx11=false -Dtests=false
}
build_tiff() {
  cmake_build -Dtiff-tools=OFF -Dtiff-tests=OFF -Dtiff-contrib=OFF -Dtiff-docs=OFF -Djbig=OFF -Djpeg=OFF \
    -Dold-jpeg=OFF -Dlzma=OFF -Dzstd=OFF -Dwebp=OFF -Dlerc=OFF -Dlibdeflate=OFF -Dpixarlog=OFF -Dzlib=ON -Dcxx=OFF
}
build_gdk_pixbuf() {
  meson_build -Dpng=enabled -Dtiff=disabled -Djpeg=disabled -Dbuiltin_loaders=png \
    -Dnative_windows_loaders=false -Drelocatable=true -Dintrospection=disabled -Dman=false \
    -Dgtk_doc=false -Dinstalled_tests=false -Dtests=false
}
build_gtk4() {
  meson_build -Dwin32-backend=true -Dx11-backend=false -Dwayland-backend=false -Dbroadway-backend=false \
    -Dmacos-backend=false -Dmedia-gstreamer=disabled -Dmedia-ffmpeg=disabled -Dprint-cups=disabled -Dvulkan=disabled \
    -Dcloudproviders=disabled -Dsysprof=disabled -Dtracker=disabled -Dcolord=disabled \
    -Df16c=disabled -Dgtk_doc=false -Dman-pages=false -Dintrospection=disabled -Ddemos=false \
    -Dbuild-examples=false -Dbuild-tests=false -Dinstall-tests=false
}
build_libadwaita_1() {
  # libadwaita adds -fstack-protector on Windows: link libssp (shipped as libssp-0.dll)
  meson_build -Dintrospection=disabled -Dvapi=false -Dtests=false -Dexamples=false -Dgtk_doc=false \
    -Dc_link_args="-L$P/lib -lssp"
}

# --- building a stack -------------------------------------------------------------------
fetch() { # fetch PKG...: the orig tarballs, json-glib's from third-party/ when apt has none
  bash "$here/apt-source.sh" get "$src_dir" "$@" && return 0
  local p ok=1
  for p in "$@"; do
    [ -s "$src_dir/${orig[$p]}" ] && continue
    if [ "$p" = json-glib ] && [ "${version[$p]%%-*}" = 1.6.6 ] && [ -s "$here/third-party/json-glib-1.6.6.tar.xz" ]; then
      say "json-glib: apt could not fetch ${orig[$p]}; using scripts/windows/third-party/json-glib-1.6.6.tar.xz (upstream tag 1.6.6, see its README)"
      cp "$here/third-party/json-glib-1.6.6.tar.xz" "$src_dir/${orig[$p]}"
    else
      ok=0
    fi
  done
  [ "$ok" -eq 1 ]
}

# apply_debian_patches PKG: in the unpacked source, applies the patches of
# Debian's debian/patches/series that apply (quilt's order and -pN); prints
# what it applied and skipped. Nothing when this version has no patch tarball.
# In an autotools source, a patch of configure.ac, Makefile.am or *.m4 is
# skipped: make would run automake, which the build does not have.
apply_debian_patches() {
  local p=$1 v=${version[$1]#*:} tarball name level n=0 applied=0 skipped=() autotools=()
  tarball=$src_dir/${p}_${v}.debian.tar.xz
  [ -s "$tarball" ] || { echo "no Debian patches (no ${p}_${v}.debian.tar.xz)"; return 0; }
  mkdir -p _debian
  tar -xf "$tarball" -C _debian debian/patches 2>/dev/null || { echo "no debian/patches in $tarball"; return 0; }
  [ -f _debian/debian/patches/series ] || { echo "no debian/patches/series"; return 0; }
  while read -r name level; do
    case $name in '' | '#'*) continue ;; esac
    level=${level:--p1}
    n=$((n + 1))
    if [ -x configure ] && grep -qE '^\+\+\+ \S*(configure\.ac|Makefile\.am|\.m4)\b' "_debian/debian/patches/$name"; then
      autotools+=("$name")
    elif patch "$level" -N -s --dry-run -i "_debian/debian/patches/$name" >/dev/null 2>&1 &&
         patch "$level" -N -s -i "_debian/debian/patches/$name" >/dev/null 2>&1; then
      applied=$((applied + 1))
    else
      skipped+=("$name")
    fi
  done < _debian/debian/patches/series
  rm -rf _debian
  echo "Debian's patches: $applied of $n applied${skipped[*]:+ (did not apply: ${skipped[*]})}${autotools[*]:+ (edit autotools inputs: ${autotools[*]})}"
}

# What each package is built against, within the stacks (zlib is mingw's):
# a package starts once these are built, LS_SLOTS (default 2) side by side.
declare -A needs=(
  [glib2.0]="libffi pcre2 gettext" [json-glib]="glib2.0" [cairo]="glib2.0 libpng1.6 pixman"
  [harfbuzz]="glib2.0" [pango1.0]="glib2.0 cairo fribidi harfbuzz" [graphene]="glib2.0"
  [gdk-pixbuf]="glib2.0 libpng1.6" [gtk4]="pango1.0 gdk-pixbuf graphene libepoxy tiff libjpeg-turbo"
  [libadwaita-1]="gtk4"
)
slots=${LS_SLOTS:-2}
# A package's marker: its version, its recipe, the shared helpers and its
# needs' markers. A package whose marker is in the prefix is not built again.
declare -A mark
helpers=$(declare -f write_toolchain autotools_env configure_host meson_build cmake_build apply_debian_patches)
for p in "${all[@]}"; do # in the lists' order: needs come first
  mark[$p]=$({ echo "$p ${version[$p]} zlib ${version[zlib]}"; declare -f "build_${p//[-.]/_}"; echo "$helpers"
               for d in ${needs[$p]:-}; do echo "${mark[$d]}"; done; } | sha256sum | cut -c1-16)
done
has_mark() { [ "$(cat "$1/.loadscope/done/$2" 2>/dev/null)" = "${mark[$2]}" ]; }

# build_pkg PKG: unpacks, patches and builds PKG into $P (in the background:
# the caller records it); with Debian's patches first, then without them.
build_pkg() {
  local p=$1 fn=build_${1//[-.]/_} dir=$work_root/$1 log=$work_root/logs/$1.log patches rc
  rm -rf "$dir" && mkdir -p "$dir" && tar -xf "$src_dir/${orig[$p]}" -C "$dir" --strip-components=1
  patches=$(cd "$dir" && apply_debian_patches "$p")
  set +e
  ( cd "$dir"; set -e; "$fn" ) > "$log" 2>&1
  rc=$?
  if [ "$rc" -ne 0 ] && [[ $patches == *" of "* ]] && [[ $patches != "Debian's patches: 0 of"* ]]; then
    say "$p ${version[$p]}: FAILED with Debian's patches (log: $log.patched); building the upstream tarball alone"
    mv "$log" "$log.patched"
    rm -rf "$dir" && mkdir -p "$dir" && tar -xf "$src_dir/${orig[$p]}" -C "$dir" --strip-components=1
    patches="Debian's patches: none (the build failed with them; see $log.patched)"
    ( cd "$dir"; set -e; "$fn" ) > "$log" 2>&1
    rc=$?
  fi
  echo "$patches" > "$work_root/logs/$p.patches"
  [ "$rc" -ne 0 ] || rm -rf "$dir"
  return "$rc"
}

# kill_tree PID: PID first (so that it starts nothing more), then its children
kill_tree() { local c kids; kids=$(pgrep -P "$1"); kill "$1" 2>/dev/null; for c in $kids; do kill_tree "$c"; done; }

# build_all PKG...: builds into $P those without their marker, each once its
# needs are done (a failed optional need counts as done: the dependent says).
build_all() {
  local -A state=() started=() pkg_of=()
  local p d ready running=0 left=0 pid rc secs
  for p in "$@"; do
    if has_mark "$P" "$p"; then say "$p ${version[$p]}: in the prefix already"; state[$p]=ok
    else state[$p]=wait; left=$((left + 1)); fi
  done
  while [ "$left" -gt 0 ]; do
    for p in "$@"; do
      [ "$running" -lt "$slots" ] || break
      [ "${state[$p]}" = wait ] || continue
      ready=1
      for d in ${needs[$p]:-}; do
        case ${state[$d]:-ok} in ok | failed) ;; *) ready=0 ;; esac
      done
      [ "$ready" -eq 1 ] || continue
      build_pkg "$p" &
      pkg_of[$!]=$p
      state[$p]=run
      started[$p]=$(date +%s)
      running=$((running + 1))
      say "$p ${version[$p]}: building (log: $work_root/logs/$p.log)"
    done
    [ "$running" -gt 0 ] || die "$stack_name stack: nothing can start (a cycle in needs?)"
    rc=0
    wait -n -p pid || rc=$?
    p=${pkg_of[$pid]}
    running=$((running - 1))
    left=$((left - 1))
    secs=$(( $(date +%s) - ${started[$p]} ))
    say "$p ${version[$p]}: $(cat "$work_root/logs/$p.patches")"
    if [ "$rc" -eq 0 ]; then
      state[$p]=ok
      find "$P/lib" -name '*.la' -delete
      echo "${mark[$p]}" > "$P/.loadscope/done/$p"
      sed -i "/^$p /d" "$P/.loadscope/times" "$P/.loadscope/patches" 2>/dev/null || true
      echo "$p ${version[$p]} $secs" >> "$P/.loadscope/times"
      echo "$p ${version[$p]}: $(cat "$work_root/logs/$p.patches")" >> "$P/.loadscope/patches"
      say "$p ${version[$p]}: built in $secs s"
      continue
    fi
    state[$p]=failed
    say "$p ${version[$p]}: FAILED after $secs s (log: $work_root/logs/$p.log); its last lines:"
    tail -n 25 "$work_root/logs/$p.log" | sed 's/^/    /'
    if [[ "$optional_pkgs" != *" $p "* ]]; then
      for pid in $(jobs -p); do kill_tree "$pid"; done
      wait
      die "$stack_name stack: $p failed; the $stack_name stack is not built"
    fi
    say "$p: left out; Loadscope is built without it"
    sed -i "/^$p /d" "$P/.loadscope/missing"
    echo "$p ${version[$p]}: the cross build failed (see $work_root/logs/$p.log)" >> "$P/.loadscope/missing"
  done
}

# build_stack NAME FINAL SEED PKG...: builds into FINAL.partial (copied from
# SEED, a finished prefix, when it has no partial yet), then renames it.
build_stack() {
  local name=$1 final=$2 seed=$3 t0 p
  shift 3
  if [ -e "$final/.loadscope/complete" ]; then
    say "$name stack: cached in $final"
    return 0
  fi
  t0=$(date +%s)
  P=$final.partial
  if [ ! -d "$P" ]; then
    if [ -n "$seed" ] && [ -d "$seed" ]; then
      say "$name stack: starting from $seed"
      cp -a "$seed" "$P"
      rm -f "$P/.loadscope/complete"
    else
      mkdir -p "$P"
    fi
  fi
  mkdir -p "$P/bin" "$P/lib/pkgconfig" "$P/include" "$P/.loadscope/done" "$work_root/logs"
  touch "$P/.loadscope/missing"
  write_toolchain "$P"
  if [ ! -d "$work_root/wineprefix" ]; then
    say "initialising the build's Wine prefix"
    "$tc/wine" wineboot --init >/dev/null 2>&1 || die "wineboot failed"
    WINEPREFIX=$work_root/wineprefix "$(dirname "$WINE")/wineserver" -w || true
  fi
  fetch "$@" || die "sources missing (see above)"
  [ "$name" != cli ] || cp "$SYSROOT/lib/zlib1.dll" "$P/bin/"
  stack_name=$name
  build_all "$@"
  say "$name stack: $(( $(date +%s) - t0 )) s this run; package build times (s):"
  sed 's/^/    /' "$P/.loadscope/times"
  # relocatable .pc files (CMake writes absolute paths; the prefix is renamed)
  sed -i -E "s#$cache/win-deps-[a-z]+-[0-9a-f]+(\.partial)?#\${pcfiledir}/../..#g" "$P"/lib/pkgconfig/*.pc
  date -u +%FT%TZ > "$P/.loadscope/complete"
  rm -rf "$final"
  mv "$P" "$final"
  # older prefixes of this stack go (a key changes with any version or script edit)
  for p in "$cache"/win-deps-"$name"-*; do
    [ "$p" = "$final" ] || [ "$p" = "$final.partial" ] || rm -rf "$p"
  done
}

# newest STACK: the prefix of that stack with the most packages done (a seed)
newest() {
  local d best= n max=-1
  for d in "$cache"/win-deps-"$1"-*; do
    [ -d "$d/.loadscope/done" ] || continue
    n=$(ls "$d/.loadscope/done" | wc -l)
    [ "$n" -le "$max" ] || { max=$n; best=$d; }
  done
  echo "$best"
}
started=$(date +%s)
build_stack cli "$cli_prefix" "$(newest cli)" "${cli_pkgs[@]}"
if [ "$want_gui" -eq 1 ]; then
  # over this CLI stack: an older GUI prefix only when its CLI packages are these
  seed=$(newest gui)
  for p in "${cli_pkgs[@]}"; do
    ! has_mark "$cli_prefix" "$p" || has_mark "$seed" "$p" || seed=$cli_prefix
  done
  build_stack gui "$gui_prefix" "$seed" "${gui_pkgs[@]}"
fi
say "done in $(( $(date +%s) - started )) s"
