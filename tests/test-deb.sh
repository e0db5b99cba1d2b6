#!/usr/bin/env bash
# Inspects the Debian package scripts/package-deb.sh makes, without
# installing it (scripts/fresh-check.sh --deb installs it into a fresh root):
#   - its control fields (package, version, architecture, a description)
#   - Depends names the runtime libraries the programs load (GLib, GTK 4,
#     libadwaita, SQLite, json-glib, libjpeg-turbo, cairo, pango), each with
#     a version, and nothing from /usr/local
#   - its files: both programs, the desktop entry, the metainfo, the icons,
#     the schema, the probe, the copyright, the zh_CN catalogue; all under
#     /usr, none under /usr/local; no build folder paths
#   - the desktop entry and metainfo it carries pass desktop-file-validate
#     and appstreamcli validate --no-net (where installed)
#
#   test-deb.sh DEB
#
# Ends with "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail
deb=${1:?the .deb to inspect}
passed=0
failed=0
say() { echo "test-deb: $*"; }
ok() { passed=$((passed + 1)); say "ok: $*"; }
bad() { failed=$((failed + 1)); say "FAILED: $*"; }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

[ -f "$deb" ] || { bad "no package $deb"; finish; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/loadscope-test-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = loadscope ] && ok "Package: loadscope" || bad "Package is '$(field Package)', not loadscope"
version=$(field Version)
case $(basename "$deb") in
  "loadscope_${version}_$(field Architecture).deb") ok "named after its version and architecture ($(basename "$deb"))" ;;
  *) bad "$(basename "$deb") is not loadscope_${version}_$(field Architecture).deb" ;;
esac
[ -n "$(field Description)" ] && ok "has a description" || bad "no Description"

depends=$(field Depends)
say "Depends: $depends"
for lib in 'libglib2.0-0' 'libgtk-4-1' 'libadwaita-1-0' 'libsqlite3-0' 'libjson-glib-1.0-0' 'libturbojpeg0' \
           'libcairo2' 'libpango-1.0-0' 'libc6'; do
  if grep -Eq "(^|, )${lib//./\\.} \(>= [^)]+\)" <<<"$depends"; then
    ok "Depends names $lib with a version"
  else
    bad "Depends does not name $lib (>= VERSION)"
  fi
done

dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' > "$tmp/files"
for f in /usr/bin/loadscope /usr/bin/loadscope-worker \
         /usr/share/applications/org.loadscope.Loadscope.desktop \
         /usr/share/metainfo/org.loadscope.Loadscope.metainfo.xml \
         /usr/share/icons/hicolor/scalable/apps/org.loadscope.Loadscope.svg \
         /usr/share/icons/hicolor/symbolic/apps/org.loadscope.Loadscope-symbolic.svg \
         /usr/share/glib-2.0/schemas/org.loadscope.Loadscope.gschema.xml \
         /usr/share/loadscope/schemas/gschemas.compiled \
         /usr/share/loadscope/probe/loadscope_probe/probe.py \
         /usr/share/doc/loadscope/copyright \
         /usr/libexec/loadscope/bundle.sh /usr/libexec/loadscope/bundle-lib.sh \
         /usr/share/locale/zh_CN/LC_MESSAGES/loadscope.mo; do
  grep -qx "$f" "$tmp/files" && ok "carries $f" || bad "does not carry $f"
done
outside=$(grep -v -e '^/usr/$' -e '^/usr/\(bin\|share\|libexec\)/' -e '^/$' "$tmp/files" | grep -v '^/usr/$')
[ -z "$outside" ] && ok "every file is under /usr/bin, /usr/share or /usr/libexec" ||
  bad "files outside /usr/{bin,share,libexec}: $(echo $outside)"
# Caches belong to Debian's triggers; a packaged one would go stale and
# stay behind on remove.
stale=$(grep -E 'gschemas\.compiled$|icon-theme\.cache$|mimeinfo\.cache$' "$tmp/files" | grep -v '^/usr/share/loadscope/')
[ -z "$stale" ] && ok "no system cache files packaged" || bad "packages system caches: $stale"

dpkg-deb -x "$deb" "$tmp/root"
if strings "$tmp/root/usr/bin/loadscope" | grep -q "$(cd "$(dirname "$0")/.." && pwd)/build"; then
  bad "usr/bin/loadscope names the build folder"
else
  ok "usr/bin/loadscope names no build folder"
fi
owners=$(dpkg-deb -c "$deb" | awk '{print $2}' | sort -u | tr '\n' ' ')
[ "$owners" = "root/root " ] && ok "every file owned by root" || bad "file owners: $owners(not root/root)"
if command -v desktop-file-validate >/dev/null; then
  out=$(desktop-file-validate "$tmp/root/usr/share/applications/org.loadscope.Loadscope.desktop" 2>&1) &&
    ok "desktop-file-validate passes on the packaged entry" || bad "desktop-file-validate: $out"
else
  say "skipped: desktop-file-validate (package desktop-file-utils)"
fi
if command -v appstreamcli >/dev/null; then
  out=$(appstreamcli validate --no-net "$tmp/root/usr/share/metainfo/org.loadscope.Loadscope.metainfo.xml" 2>&1) &&
    ok "appstreamcli validate --no-net passes on the packaged metainfo" || bad "appstreamcli validate: $out"
else
  say "skipped: appstreamcli (package appstream)"
fi
# Installed anywhere, the program finds its catalogue beside itself.
if LANG=zh_CN.UTF-8 "$tmp/root/usr/bin/loadscope" demo --help 2>&1 | grep -q '示例数据集'; then
  ok "the packaged loadscope speaks Chinese under zh_CN.UTF-8 (its catalogue at ../share/locale)"
elif ! locale -a 2>/dev/null | grep -qix 'zh_CN.utf8'; then
  say "skipped: the packaged catalogue in use (no zh_CN.UTF-8 locale here)"
else
  bad "the packaged loadscope under zh_CN.UTF-8 is not Chinese"
fi
# `remote install` without --bundle makes the bundle from the package's
# own files (libexec/loadscope/bundle.sh, the probe, the schema).
if command -v readelf >/dev/null; then
  cache=$tmp/remote-cache
  if env -u LOADSCOPE_REMOTE_BUNDLE -u LOADSCOPE_WORKER "$tmp/root/usr/bin/loadscope" remote install \
       "exec:env LOADSCOPE_REMOTE_CACHE=$cache" >"$tmp/install.log" 2>&1 &&
     ls "$cache"/*/share/loadscope/probe/loadscope_probe/probe.py "$cache"/*/share/loadscope/schemas/gschemas.compiled \
       >/dev/null 2>&1; then
    ok "the packaged loadscope makes and installs its bundle (remote install without --bundle)"
  else
    bad "remote install without --bundle from the package: $(tail -n 3 "$tmp/install.log" | tr '\n' ' ')"
  fi
else
  say "skipped: remote install without --bundle (no readelf: package binutils)"
fi
finish
