#!/usr/bin/env bash
# Builds the Debian package dist/loadscope_VERSION_amd64.deb from a release
# build with prefix /usr (docs/packaging-and-translation.md); Depends from
# dpkg-shlibdeps, so it names this machine's runtime libraries.
#   bash scripts/package-deb.sh [BUILD_DIR]     (default build-deb)
# Prints the package's path as its last line (messages go to stderr).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-deb}
LS_TAG=package-deb
. scripts/lib.sh

for tool in dpkg-deb dpkg-shlibdeps meson; do
  command -v "$tool" >/dev/null || die "$tool not found (package dpkg-dev, meson: scripts/setup.sh --tests)"
done
arch=$(dpkg --print-architecture)

# A release build of its own: prefix /usr, no debug info in the package.
bash scripts/build.sh "$build" --prefix=/usr -Dbuildtype=release -Dwerror=true >/dev/null ||
  die "the build in $build failed (run: meson compile -C $build)"
version=$(meson introspect "$build" --projectinfo | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')

stage=$(mktemp -d "${TMPDIR:-/tmp}/loadscope-deb.XXXXXX")
trap 'rm -rf "$stage"' EXIT
pkg=$stage/loadscope_${version}_$arch
# DESTDIR set: meson's gnome.post_install leaves the system caches alone.
meson install -C "$build" --destdir "$pkg" --strip --no-rebuild --quiet >/dev/null
[ -x "$pkg/usr/bin/loadscope" ] || die "meson install left no usr/bin/loadscope in $pkg"

# Documentation Debian asks every package for.
doc=$pkg/usr/share/doc/loadscope
mkdir -p "$doc"
cat > "$doc/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: loadscope

Files: *
Copyright: 2026 The Loadscope authors
License: MIT
EOF
# The release notes of the metainfo, as a Debian changelog.
python3 - "data/org.loadscope.Loadscope.metainfo.xml" "$version" > "$doc/changelog.Debian" <<'PY'
import sys, xml.etree.ElementTree as ET, email.utils, datetime
tree = ET.parse(sys.argv[1])
for rel in tree.getroot().iter("release"):
    text = " ".join(w for p in rel.iter("p") for w in "".join(p.itertext()).split())
    day = datetime.datetime.strptime(rel.get("date"), "%Y-%m-%d").replace(tzinfo=datetime.timezone.utc)
    print(f"loadscope ({rel.get('version')}) unstable; urgency=low\n\n  * {text}\n")
    print(f" -- The Loadscope developers <loadscope@localhost>  {email.utils.format_datetime(day)}\n")
PY
gzip -9n "$doc/changelog.Debian"

# Depends from the ELF imports; dpkg-shlibdeps wants a debian/control.
shl=$stage/shlibdeps
mkdir -p "$shl/debian"
printf 'Source: loadscope\n\nPackage: loadscope\nArchitecture: any\n' > "$shl/debian/control"
depends=$(cd "$shl" && dpkg-shlibdeps -O --warnings=0 "$pkg/usr/bin/loadscope" "$pkg/usr/bin/loadscope-worker" |
  sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || die "dpkg-shlibdeps found no dependencies"
installed_kb=$(du -sk --exclude=DEBIAN "$pkg" | cut -f1)

mkdir -p "$pkg/DEBIAN"
cat > "$pkg/DEBIAN/control" <<C
Package: loadscope
Version: $version
Architecture: $arch
Maintainer: The Loadscope developers <loadscope@localhost>
Installed-Size: $installed_kb
Depends: $depends
Recommends: binutils, fonts-dejavu-core, fonts-wqy-microhei | fonts-noto-cjk
Suggests: python3-torch, python3-torchvision
Section: devel
Priority: optional
Description: measure and tune how a data loader feeds a GPU
 Loadscope runs a real multi-process data loader with the knobs of
 PyTorch's DataLoader (workers, batch size, pinned memory, prefetch, start
 method) over JPEG folders or HDF5 files into a GPU consumer (CUDA where a
 GPU answers, a labelled simulated one elsewhere), sweeps the knobs,
 records every run in SQLite and compares them: a GTK 4 workbench and a
 command line.
C
out=$PWD/dist/loadscope_${version}_$arch.deb
mkdir -p dist
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$out" >/dev/null
warn "built $out ($(du -k "$out" | cut -f1) KiB; Depends: $depends)"
echo "$out"
