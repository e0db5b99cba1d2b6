# Sourced by tests/device/check.sh without --bundle: builds loadscope,
# loadscope-worker and test-sink-cuda here (CUDA on, no GUI, no HDF5),
# installing missing tools with apt-get where it can. Sets LOADSCOPE,
# LOADSCOPE_WORKER, UNIT_BIN, RUNTIME_SINK and jpeg; calls give_up when it cannot build.
# (On a bare GPU machine it cannot: make a bundle first, tests/device/bundle.sh.)

# ------------------------------------------------------------ build tools

missing_tools() {
  local m=()
  command -v meson >/dev/null 2>&1 || m+=(meson)
  command -v ninja >/dev/null 2>&1 || m+=(ninja-build)
  command -v pkg-config >/dev/null 2>&1 || m+=(pkg-config)
  command -v cc >/dev/null 2>&1 || m+=(gcc)
  command -v g++ >/dev/null 2>&1 || m+=(g++) # nvcc's host compiler
  if command -v pkg-config >/dev/null 2>&1; then
    pkg-config --exists 'glib-2.0 >= 2.74' gio-2.0 || m+=(libglib2.0-dev)
    pkg-config --exists 'json-glib-1.0 >= 1.6' || m+=(libjson-glib-dev)
    pkg-config --exists libturbojpeg || m+=(libturbojpeg0-dev)
    pkg-config --exists libjpeg || m+=(libjpeg-dev)
  fi
  command -v python3 >/dev/null 2>&1 || m+=(python3)
  echo "${m[*]}"
}

missing=$(missing_tools)
if [ -n "$missing" ] && command -v apt-get >/dev/null 2>&1; then
  note "missing: $missing; trying apt-get"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo -n)
  export DEBIAN_FRONTEND=noninteractive
  timeout 60 "${sudo_cmd[@]}" apt-get update -q >"$WORK/apt.log" 2>&1 || note "apt-get update failed (no network?)"
  # One by one: package names differ between Debian and Ubuntu.
  for p in meson ninja-build pkg-config gcc g++ libglib2.0-dev libjson-glib-dev libturbojpeg0-dev \
    libjpeg62-turbo-dev libjpeg-turbo8-dev libjpeg-dev libsqlite3-dev python3; do
    [ "$(elapsed)" -lt 110 ] || break
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && continue
    timeout 60 "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "$p" >>"$WORK/apt.log" 2>&1 ||
      echo "apt-get install $p failed" >>"$WORK/apt.log"
  done
  [ -n "${LS_CHECK_NO_PYTHON:-}" ] || PY=$(command -v python3 || true)
  missing=$(missing_tools)
fi
[ -n "$missing" ] && note "still missing after any install: $missing"
for t in meson ninja cc g++ pkg-config nvcc; do
  command -v "$t" >/dev/null 2>&1 || give_up "cannot build: '$t' is not installed (missing: $missing)"
done
meson_version=$(meson --version 2>/dev/null)
note "meson $meson_version, ninja $(ninja --version 2>/dev/null)"
case "$meson_version" in
  0.*) give_up "cannot build: meson $meson_version is older than 1.0.0 (the project needs >= 1.0)" ;;
esac

# ------------------------------------------------------------ build

# Both CUDA sinks: the driver API's and, to compare with, the runtime API's.
setup_opts=(-Dgui=disabled -Dhdf5=disabled -Dcuda=enabled -Dcudart_sink=true -Dbuildtype=debugoptimized)
RUNTIME_SINK=yes
jpeg=yes
pkg-config --exists libturbojpeg libjpeg || {
  jpeg=no
  setup_opts+=(-Djpeg=disabled)
  note "no libjpeg-turbo: building without JPEG, measuring on a synthetic dataset"
}
setup() {
  if [ -f "$BUILD/meson-private/coredata.dat" ]; then
    meson setup --reconfigure "$BUILD" "${setup_opts[@]}" >"$WORK/setup.log" 2>&1 && return 0
    rm -rf "$BUILD"
  fi
  meson setup "$BUILD" "${setup_opts[@]}" >"$WORK/setup.log" 2>&1
}
if ! setup; then
  tail -n 30 "$WORK/setup.log" >&2
  give_up "meson setup failed: $(grep -E 'ERROR|error' "$WORK/setup.log" | head -n 3 | tr '\n' ' ')"
fi
compile() {
  timeout 150 meson compile -C "$BUILD" app/loadscope loader/loadscope-worker >"$WORK/build.log" 2>&1
}
if ! compile; then
  if grep -q "unsupported GNU version\|unsupported clang version" "$WORK/build.log"; then
    note "nvcc does not support this host compiler's version; retrying with -allow-unsupported-compiler"
    export NVCC_APPEND_FLAGS="${NVCC_APPEND_FLAGS:-} -allow-unsupported-compiler"
    compile || {
      tail -n 40 "$WORK/build.log" >&2
      give_up "build failed: $(grep -iE 'error' "$WORK/build.log" | head -n 3 | tr '\n' ' ')"
    }
  else
    tail -n 40 "$WORK/build.log" >&2
    give_up "build failed: $(grep -iE 'error' "$WORK/build.log" | head -n 3 | tr '\n' ' ')"
  fi
fi
# The sink's own test program, whose GPU half only runs here (optional).
unit=yes
timeout 60 meson compile -C "$BUILD" tests/test-sink-cuda >"$WORK/build-test.log" 2>&1 || {
  unit=no
  note "tests/test-sink-cuda did not build: $(grep -iE 'error' "$WORK/build-test.log" | head -n 2 | tr '\n' ' ')"
}
UNIT_BIN=$ROOT/$BUILD/tests/test-sink-cuda
[ "$unit" = yes ] || UNIT_BIN=
LOADSCOPE=$ROOT/$BUILD/app/loadscope
export LOADSCOPE_WORKER=$ROOT/$BUILD/loader/loadscope-worker
[ -x "$LOADSCOPE" ] || give_up "the build did not produce $LOADSCOPE"
note "built in $(elapsed) s"
