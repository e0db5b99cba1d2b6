#!/usr/bin/env bash
# Installs the Debian packages Loadscope needs; when all are there it only
# asks dpkg. What each installs: docs/testing.md.
#   setup.sh          to build and run the workbench (scripts/start.sh)
#   setup.sh --tests  and to run the tests (scripts/test.sh)
set -euo pipefail
LS_TAG=setup
. "$(dirname "$0")/lib.sh"

packages=(
  # build and run: the command line, the headless demo's charts, the window
  gcc ninja-build meson pkg-config
  libglib2.0-dev libglib2.0-dev-bin libjson-glib-dev libsqlite3-dev
  libturbojpeg0-dev libjpeg62-turbo-dev libhdf5-dev
  libcairo2-dev libpango1.0-dev fonts-dejavu-core
  libgtk-4-dev libadwaita-1-dev
  desktop-file-utils # update-desktop-database: meson's gnome.post_install (data/meson.build) at configure time
  gettext # msgfmt for the translations (po/meson.build; without it the build is English only)
)

test_packages=(
  # data/ validation and GUI tests
  appstream xvfb xauth x11-utils dbus imagemagick
  wixl msitools # scripts/windows/package-msi.sh (the .deb's dpkg-shlibdeps is in dpkg-dev, below)
  locales fonts-wqy-microhei # tests/test-zh-cn.sh: the zh_CN.UTF-8 locale (generated below), a CJK font
  gcc-mingw-w64-x86-64 wine wine64 # the Windows cross build and its self-test
  # scripts/windows/: the Windows dependency stack from Debian's sources
  g++-mingw-w64-x86-64-win32 libz-mingw-w64-dev dpkg-dev cmake nasm sassc tcl
  # (gettext, above: xgettext, which GLib's build asks for too)
  adwaita-icon-theme # its symbolic PNGs go into the zip (scripts/windows/build.sh)
  xz-utils unzip zip
  slurmctld slurmd slurm-client munge # Slurm job arrays: scripts/slurm-local.sh, tests/test-slurm.sh
  python3-torch python3-torchvision python3-h5py # --target pytorch tests (tests/pytorch/), on the CPU
  # scripts/fuzz.sh: clang and its libFuzzer runtime (only recommended by clang-14)
  clang libclang-rt-14-dev
  llvm-14 # llvm-symbolizer: fuzz.sh tells a child's crash in libhdf5 from ours by its frames' names (fresh-check.sh found it missing)
  openssh-server openssh-client # tests/test-remote.sh: --on ssh: against an sshd of its own on 127.0.0.1
  sqlite3 # tests/test-faults.sh: the store checked from outside
  chromium # tests/test-report.c: the report shown in a real browser (headless)
)

# A CJK font where the locale is Chinese, Japanese or Korean: the window,
# its charts and the reports draw those characters (else empty boxes).
case ${LC_ALL:-${LANG:-}} in
  zh*|ja*|ko*) packages+=(fonts-wqy-microhei) ;;
esac

case ${1:-} in
  --tests) packages+=("${test_packages[@]}") ;;
  "") ;;
  *) echo "setup.sh: unknown option '$1' (--tests or none)" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)

if [ ${#missing[@]} -eq 0 ]; then
  say "all ${#packages[@]} Debian packages present"
else
  say "installing ${#missing[@]} missing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# --tests: LANG=zh_CN.UTF-8 runs (the Chinese translation's tests) need the
# locale generated, not only the locales package.
if [ "${1:-}" = --tests ] && ! locale -a 2>/dev/null | grep -qix 'zh_CN.utf8'; then
  say "generating the zh_CN.UTF-8 locale"
  "${sudo[@]}" sed -i 's/^# *\(zh_CN.UTF-8 UTF-8\)/\1/' /etc/locale.gen
  grep -q '^zh_CN.UTF-8 UTF-8' /etc/locale.gen || echo 'zh_CN.UTF-8 UTF-8' | "${sudo[@]}" tee -a /etc/locale.gen >/dev/null
  "${sudo[@]}" locale-gen >/dev/null
fi
[ ${#missing[@]} -eq 0 ] || say "done"
