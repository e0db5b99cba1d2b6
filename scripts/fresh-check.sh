#!/usr/bin/env bash
# The README's two commands, (a) scripts/start.sh without a display and (b)
# scripts/test.sh, in a fresh Debian 12 root (debootstrap, gcc and ninja, a
# clean clone of HEAD), each with its exit status and time. Needs root;
# about an hour (docs/testing.md).
#
#   sudo bash scripts/fresh-check.sh [--root DIR] [--keep] [--deb [--deb-only]]
#
#   --root DIR  where the root goes (default /var/tmp/loadscope-fresh); an
#               existing root there is removed first unless --keep reuses it
#   --keep      reuse DIR when it holds a finished debootstrap, and leave it
#               afterwards (to look inside); without it the root is removed
#   --deb       first, before (a): build the .deb, `apt install` it into the
#               root, run the demo and the desktop entry's window, remove it
#               and check no file of it is left (log deb.log)
#   --deb-only  with --deb: stop after that step
#   --deb-file FILE  as --deb, with a .deb already built (no build here)
#
# Logs: DIR.logs/ (start.log, test.log).
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

root=/var/tmp/loadscope-fresh
keep=0
deb=0
deb_only=0
deb_given=
while [ $# -gt 0 ]; do
  case $1 in
    --root) root=${2:?--root needs a folder}; shift 2 ;;
    --keep) keep=1; shift ;;
    --deb) deb=1; shift ;;
    --deb-only) deb_only=1; shift ;;
    --deb-file) deb=1; deb_given=$(readlink -f "${2:?--deb-file needs a .deb}"); shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "fresh-check.sh: unknown argument '$1' (--root DIR, --keep, --deb, --deb-only, --deb-file FILE)" >&2; exit 2 ;;
  esac
done
LS_TAG=fresh-check
. scripts/lib.sh

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot and mounts): sudo bash $0 $*"
case $root in /|/bin|/boot|/dev|/etc|/home|/lib*|/proc|/root|/run|/sbin|/sys|/usr|/var) die "--root $root: not a system folder" ;; esac
logs=$root.logs
mkdir -p "$logs"
started=$(date +%s)

# This machine's Debian sources, as they are: the root gets the same
# archive, updates and security suites, and debootstrap the first archive URI.
sources=$(mktemp -d)
mirror=$(python3 scripts/apt-sources.py "$sources" bookworm) || die "no Debian bookworm sources in /etc/apt/sources.list{,.d}"

if ! command -v debootstrap >/dev/null; then
  say "installing debootstrap on this machine"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >/dev/null ||
    die "could not install debootstrap"
fi

mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -l "${mounted[$i]}" 2>/dev/null
  done
  # never remove while anything is still mounted inside (the clone's bind
  # mount shares this file system; /dev is the machine's own)
  if grep -q " $root/" /proc/mounts; then
    warn "mounts are left under $root; not removing it"
    return
  fi
  rm -rf "$sources" "${clone:-}"
  if [ "$keep" -eq 0 ] && [ ${#mounted[@]} -gt 0 ]; then
    rm -rf --one-file-system "$root"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1. the root
t0=$(date +%s)
if [ "$keep" -eq 1 ] && [ -x "$root/usr/bin/gcc" ] && [ -f "$root/.fresh-check-done" ]; then
  say "reusing the root in $root (--keep)"
else
  rm -rf --one-file-system "$root"
  say "debootstrap bookworm into $root from $mirror"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$logs/debootstrap.log" 2>&1 ||
    die "debootstrap failed (see $logs/debootstrap.log)"
  rm -f "$root/etc/apt/sources.list"
  cp "$sources"/* "$root/etc/apt/sources.list.d/"
fi
mount_in() { # mount_in TARGET ARGS...: a mount inside the root, undone at exit
  mkdir -p "$root$1"
  mount "${@:2}" "$root$1" && mounted+=("$root$1")
}
mount_in /proc -t proc proc
# /sys with what is mounted under it: slurmd (tests/test-slurm.sh) needs
# the machine's cgroup file systems, as systemd mounts them on a real one.
# A slave, so that undoing it never unmounts anything of the machine's.
mount_in /sys --rbind /sys && mount --make-rslave "$root/sys"
mount_in /dev --bind /dev
mount_in /dev/pts --bind /dev/pts
mount_in /dev/shm -t tmpfs -o mode=1777 shm
mount_in /tmp -t tmpfs -o mode=1777 tmp
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 TERM=dumb "$@"
}
if [ ! -f "$root/.fresh-check-done" ]; then
  # What a fresh machine has: Debian 12 with gcc and ninja only.
  in_root bash -c 'export DEBIAN_FRONTEND=noninteractive; apt-get update -q && apt-get install -y -q gcc ninja-build' \
    >"$logs/base.log" 2>&1 || die "installing gcc and ninja in the root failed (see $logs/base.log)"
  touch "$root/.fresh-check-done"
fi
say "root ready in $(( $(date +%s) - t0 )) s: $(in_root dpkg-query -W -f='.\n' | wc -l) packages"

# 2. a clean clone of HEAD, bound into the root
clone=$(mktemp -d /var/tmp/loadscope-fresh-clone.XXXXXX)
git clone -q "$repo" "$clone/loadscope" || die "git clone of $repo failed"
say "clone of $(git -C "$clone/loadscope" log -1 --format='%h %s' | cut -c1-72)"
mount_in /work/loadscope --bind "$clone/loadscope"

# 2b. --deb: the package alone in the fresh root, removed again
deb_rc=
if [ "$deb" -eq 1 ]; then
  t0=$(date +%s)
  deb_file=${deb_given:-$(bash "$clone/loadscope/scripts/package-deb.sh" 2>"$logs/deb-build.log" | tail -n 1)}
  if [ ! -f "$deb_file" ]; then
    deb_rc=1
    say ".deb: scripts/package-deb.sh failed (see $logs/deb-build.log)"
  else
    cp "$deb_file" "$root/tmp/"
    in_root bash -s "/tmp/$(basename "$deb_file")" >"$logs/deb.log" 2>&1 <<'DEB'
set -u
deb=$1
export DEBIAN_FRONTEND=noninteractive
step() { echo "deb-check: $*"; }
fail() { echo "deb-check: FAILED: $*"; exit 1; }
apt-get install -y -q "$deb" || fail "apt install $deb"
step "installed: $(dpkg-query -W -f='${Package} ${Version}' loadscope)"
loadscope demo >/tmp/deb-demo.out 2>&1 || { tail -n 20 /tmp/deb-demo.out; fail "loadscope demo"; }
grep -qi 'recommend' /tmp/deb-demo.out || fail "loadscope demo printed no recommendation"
step "loadscope demo ran"
# The window, as a desktop starts it: the entry's Exec, under Xvfb.
apt-get install -y -q --no-install-recommends xvfb xauth x11-utils >/dev/null || fail "installing Xvfb"
entry=/usr/share/applications/org.loadscope.Loadscope.desktop
exec_line=$(sed -n 's/^Exec=//p' "$entry" | head -n 1 | sed 's/ *%[fFuU]//g')
[ -n "$exec_line" ] || fail "no Exec= in $entry"
xvfb-run -a -s "-screen 0 1280x800x24" bash -c "GTK_A11Y=none $exec_line & pid=\$!; for i in \$(seq 60); do
    sleep 1; xwininfo -root -tree 2>/dev/null | grep -q '\"Loadscope\"' && { kill \$pid; wait \$pid; exit 0; }; done; kill \$pid; exit 1" ||
  fail "no window titled Loadscope within 60 s of '$exec_line' from $entry"
step "the desktop entry's '$exec_line' showed a window titled Loadscope"
apt-get remove -y -q --autoremove loadscope xvfb xauth x11-utils >/dev/null || fail "apt remove loadscope"
case $(dpkg-query -W -f='${Status}' loadscope 2>/dev/null) in
  *" installed"|*half*|*config-files) fail "dpkg still lists loadscope: $(dpkg-query -W -f='${Status}' loadscope)" ;;
esac
left=$(find /usr /etc /var/lib/dpkg/info -xdev -iname '*loadscope*' 2>/dev/null | head -n 10)
[ -z "$left" ] || fail "left behind after apt remove: $left"
step "apt remove left no file of it behind"
DEB
    deb_rc=$?
  fi
  say ".deb: $(grep -E '^deb-check: ' "$logs/deb.log" 2>/dev/null | tail -n 1 | sed 's/^deb-check: //') (exit ${deb_rc}, $(( $(date +%s) - t0 )) s, log $logs/deb.log)"
  [ "$deb_only" -eq 0 ] || exit "$deb_rc"
fi

# 3. the README's two commands, without a display
# readme_command NAME: scripts/NAME.sh in the root (log NAME.log); prints
# "exit RC in S s" and returns RC
readme_command() {
  local t0 rc
  t0=$(date +%s)
  in_root bash -c "cd /work/loadscope && bash scripts/$1.sh" >"$logs/$1.log" 2>&1
  rc=$?
  echo "exit $rc in $(( $(date +%s) - t0 )) s"
  return $rc
}
before=$(in_root dpkg-query -W -f='.\n' | wc -l)
start_said=$(readme_command start)
start_rc=$?
after=$(in_root dpkg-query -W -f='.\n' | wc -l)
fetched=$(grep -Eo '^Fetched [0-9.]+ [kMG]?B' "$logs/start.log" | tail -n 1)
test_said=$(readme_command test)
test_rc=$?
summary=$(grep -E '^tests: [0-9]+ passed, [0-9]+ failed' "$logs/test.log" | tail -n 1)

echo
say "scripts/start.sh: $start_said; it installed $((after - before)) packages (${fetched:-nothing fetched})"
say "scripts/test.sh:  $test_said; ${summary:-no summary line (see $logs/test.log)}"
grep -E '^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)|^== .*FAILED|FAILED:' "$logs/test.log" | head -n 20 | sed 's/^/  /'
say "logs in $logs; $(( $(date +%s) - started )) s in all"
[ "$start_rc" -eq 0 ] && [ "$test_rc" -eq 0 ] && [ "${deb_rc:-0}" -eq 0 ]
