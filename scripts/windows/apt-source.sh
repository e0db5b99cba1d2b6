#!/usr/bin/env bash
# Fetches Debian source packages with `apt-get source`, through a PRIVATE apt
# configuration: its own sources list (Types: deb-src, with the URIs, suites
# and keyrings of this machine's configured Debian sources), its own lists and
# cache under ~/.cache/loadscope/apt. The system's apt configuration is read,
# never changed; no host is named here.
#
#   apt-source.sh list PKG...     print "PKG VERSION ORIG-TARBALL" per package (no
#                                 download; the private lists are fetched once)
#   apt-source.sh get DIR PKG...  download what each package's orig tarball
#                                 into DIR (when not there yet), unpacked not
#   apt-source.sh update          refresh the private lists
#
# Environment: LS_CACHE (default ~/.cache/loadscope).
set -euo pipefail

cache=${LS_CACHE:-$HOME/.cache/loadscope}
aptdir=$cache/apt
here=$(cd "$(dirname "$0")" && pwd)
LS_TAG=apt-source
. "$here/../lib.sh" # warn, die: on stderr, since stdout is the list

codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || { warn "no VERSION_CODENAME in /etc/os-release"; exit 2; }

# deb-src entries made from the machine's Debian entries: those of this
# release's suites (bookworm, bookworm-updates, bookworm-security, ...), from
# sources.list (one-line) and sources.list.d/*.list|*.sources (deb822).
write_sources() {
  python3 "$here/../apt-sources.py" --deb-src "$aptdir/sources.list.d/loadscope-src.sources" "$codename"
}

setup() {
  mkdir -p "$aptdir/sources.list.d" "$aptdir/lists/partial" "$aptdir/cache/archives/partial" \
           "$aptdir/etc/preferences.d" "$aptdir/etc/apt.conf.d"
  : > "$aptdir/empty.list"
  write_sources
  cat > "$aptdir/apt.conf" <<CONF
Dir::Etc::SourceList "$aptdir/empty.list";
Dir::Etc::SourceParts "$aptdir/sources.list.d";
Dir::Etc::Preferences "$aptdir/etc/preferences";
Dir::Etc::PreferencesParts "$aptdir/etc/preferences.d";
Dir::Etc::Parts "$aptdir/etc/apt.conf.d";
Dir::State::Lists "$aptdir/lists";
Dir::Cache "$aptdir/cache";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
Acquire::Languages "none";
APT::Get::Only-Source "true";
CONF
  [ "$(id -u)" -ne 0 ] || echo 'APT::Sandbox::User "root";' >> "$aptdir/apt.conf"
  export APT_CONFIG=$aptdir/apt.conf
}

update() {
  warn "fetching the private source lists (deb-src of this machine's $codename sources)"
  apt-get update -q -o Debug::NoLocking=1 >&2
  touch "$aptdir/lists/.loadscope-updated"
}

ensure_lists() {
  [ -e "$aptdir/lists/.loadscope-updated" ] || update
}

# list PKG...: "PKG VERSION ORIG" per package, ORIG the upstream (orig)
# tarball apt would fetch (or the native tarball); one apt call for all.
list() {
  apt-get source --print-uris -q "$@" 2>/dev/null | awk -v want="$*" '
    BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) asked[w[i]] = 1 }
    $1 ~ /^\x27/ {
      f = $2; src = f; sub(/_.*/, "", src)
      if (!(src in asked)) next
      if (f ~ /\.dsc$/) { v = f; sub(/^[^_]*_/, "", v); sub(/\.dsc$/, "", v); ver[src] = v }
      else if (f ~ /\.orig\.tar\.[a-z0-9]+$/ || (f ~ /\.tar\.[a-z0-9]+$/ && f !~ /\.debian\.tar/ && f !~ /\.orig-/)) orig[src] = f
    }
    END { for (i = 1; i <= n; i++) { p = w[i]
      if (!(p in ver) || !(p in orig)) { print "apt-source: no source package " p > "/dev/stderr"; bad = 1; continue }
      print p, ver[p], orig[p] }
      exit bad }'
}

cmd=${1:-}
shift || true
setup
case "$cmd" in
  update) update ;;
  list)
    ensure_lists
    list "$@" ;;
  get)
    dir=$1; shift
    ensure_lists
    # (listed before entering DIR: apt lists no file that DIR already has)
    wanted=$(list "$@")
    mkdir -p "$dir"
    cd "$dir"
    rc=0
    while read -r p v orig; do
      # Debian's patch tarball of this version (its patches are applied by
      # deps.sh), tried once: "$p_$v.no-debian" remembers that it was not
      # there (a security update's may be missing from a mirror).
      debian=${p}_${v#*:}.debian.tar.xz
      [ -s "$orig" ] && { [ -s "$debian" ] || [ -e "${p}_${v#*:}.no-debian" ] || [ "$v" = "${v%-*}" ]; } && continue
      # --download-only: dpkg-source is not run; deps.sh unpacks the orig
      # tarball and applies debian/patches itself. Only the orig tarball
      # must arrive.
      apt-get source --download-only -q "$p" >&2 || true
      [ -s "$debian" ] || [ "$v" = "${v%-*}" ] || { warn "$p $v: no $debian here; built without Debian's patches"; : > "${p}_${v#*:}.no-debian"; }
      if [ -s "$orig" ]; then warn "$p $v: $orig"; else warn "could not download $orig ($p $v)"; rc=1; fi
    done <<< "$wanted"
    exit $rc ;;
  *) echo "usage: $0 list PKG... | get DIR PKG... | update" >&2; exit 2 ;;
esac
