# Sourced by tests/device/check.sh without --bundle: builds loadscope,
# loadscope-worker and test-sink-cuda in build-device/ (CUDA on, no GUI, no
# HDF5), installing missing tools with apt-get where it can. Sets LOADSCOPE,
# LOADSCOPE_WORKER, UNIT_BIN, RUNTIME_SINK and jpeg; calls give_up when it
# cannot build (on a bare GPU machine: make a bundle, tests/device/bundle.sh).
BUILD=build-device

if ! command -v nvcc >/dev/null 2>&1; then
  for d in /usr/local/cuda/bin /usr/local/cuda-*/bin /opt/cuda/bin; do
    [ -x "$d/nvcc" ] && export PATH="$d:$PATH" && break
  done
fi
if command -v nvcc >/dev/null 2>&1; then
  note "nvcc: $(command -v nvcc), $(nvcc --version | grep -o 'release [0-9.]*' | head -n 1)"
else
  note "nvcc not found (PATH, /usr/local/cuda/bin)"
fi

missing_tools() {
  local m=() t
  # command:package; g++ is nvcc's host compiler.
  for t in meson:meson ninja:ninja-build pkg-config:pkg-config cc:gcc g++:g++; do
    command -v "${t%%:*}" >/dev/null 2>&1 || m+=("${t#*:}")
  done
  if command -v pkg-config >/dev/null 2>&1; then
    pkg-config --exists 'glib-2.0 >= 2.74' gio-2.0 || m+=(libglib2.0-dev)
    pkg-config --exists 'json-glib-1.0 >= 1.6' || m+=(libjson-glib-dev)
    pkg-config --exists libturbojpeg || m+=(libturbojpeg0-dev)
    pkg-config --exists libjpeg || m+=(libjpeg-dev)
  fi
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
    libjpeg62-turbo-dev libjpeg-turbo8-dev libjpeg-dev libsqlite3-dev; do
    [ "$(elapsed)" -lt 110 ] || break
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && continue
    timeout 60 "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "$p" >>"$WORK/apt.log" 2>&1 ||
      echo "apt-get install $p failed" >>"$WORK/apt.log"
  done
  missing=$(missing_tools)
fi
[ -n "$missing" ] && note "still missing after any install: $missing"
for t in meson ninja cc g++ pkg-config nvcc; do
  command -v "$t" >/dev/null 2>&1 || give_up "cannot build: '$t' is not installed (missing: $missing)"
done
# (a meson older than the project needs fails at setup, saying so)
note "meson $(meson --version 2>/dev/null), ninja $(ninja --version 2>/dev/null)"

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
setup || {
  tail -n 30 "$WORK/setup.log" >&2
  give_up "meson setup failed: $(grep -E 'ERROR|error' "$WORK/setup.log" | head -n 3 | tr '\n' ' ')"
}
compile() {
  timeout 150 meson compile -C "$BUILD" app/loadscope loader/loadscope-worker >"$WORK/build.log" 2>&1
}
# Retried once when nvcc refuses this host compiler's version.
compile || {
  grep -q "unsupported GNU version\|unsupported clang version" "$WORK/build.log" &&
    note "nvcc does not support this host compiler's version; retrying with -allow-unsupported-compiler" &&
    export NVCC_APPEND_FLAGS="${NVCC_APPEND_FLAGS:-} -allow-unsupported-compiler" && compile
} || {
  tail -n 40 "$WORK/build.log" >&2
  give_up "build failed: $(grep -iE 'error' "$WORK/build.log" | head -n 3 | tr '\n' ' ')"
}
# The sink's own test program, whose GPU half only runs here (optional).
UNIT_BIN=$ROOT/$BUILD/tests/test-sink-cuda
timeout 60 meson compile -C "$BUILD" tests/test-sink-cuda >"$WORK/build-test.log" 2>&1 || {
  UNIT_BIN=
  note "tests/test-sink-cuda did not build: $(grep -iE 'error' "$WORK/build-test.log" | head -n 2 | tr '\n' ' ')"
}
LOADSCOPE=$ROOT/$BUILD/app/loadscope
export LOADSCOPE_WORKER=$ROOT/$BUILD/loader/loadscope-worker
[ -x "$LOADSCOPE" ] || give_up "the build did not produce $LOADSCOPE"
note "built in $(elapsed) s"
