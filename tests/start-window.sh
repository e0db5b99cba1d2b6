#!/usr/bin/env bash
# README command (a) on a desktop, as a new user meets it: scripts/start.sh
# under Xvfb with a clean environment (no GSETTINGS_SCHEMA_DIR, no D-Bus
# session, a fresh HOME), then the same from an installed prefix
# (`meson install --destdir`). Each time a window titled "Loadscope" must
# appear, and nothing may be written to stderr about settings.
#   start-window.sh BUILD_DIR ARTIFACT_DIR
set -uo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
artifacts=$2
mkdir -p "$artifacts"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ls-start-window.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
failures=0
n=0

# Runs a command in a clean environment on a fresh Xvfb display and waits
# (up to 180 s: start.sh may build) for the Loadscope window.
#   window_appears LABEL COMMAND...
window_appears() {
  local label=$1
  shift
  n=$((n + 1))
  local log=$scratch/$label.log shot=$artifacts/start-$label.png
  mkdir -p "$scratch/home-$label"
  env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME="$scratch/home-$label" LANG=C.UTF-8 GTK_A11Y=none \
    LOADSCOPE_BUILD_DIR="$build" LOG="$log" SHOT="$shot" \
    ASAN_OPTIONS=detect_leaks=0 \
    xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
      "$@" >"$LOG" 2>&1 &
      app=$!
      found=
      for _ in $(seq 1 900); do
        if xwininfo -root -tree 2>/dev/null | grep -q "\"Loadscope\": "; then found=1; break; fi
        kill -0 "$app" 2>/dev/null || break
        sleep 0.2
      done
      [ -n "$found" ] && sleep 1 && import -window root "$SHOT" 2>/dev/null
      kill "$app" 2>/dev/null
      wait "$app" 2>/dev/null
      [ -n "$found" ]' start-window "$@"
  local rc=$?
  if [ $rc -ne 0 ]; then
    echo "not ok $n - $label: no window titled Loadscope appeared"
    sed 's/^/#   /' "$log" | tail -n 30
    failures=$((failures + 1))
    return
  fi
  # the window's own output: after start.sh's build, whose lines may name
  # the schema it compiles (a build folder older than its sources)
  if { grep -q '^Loadscope is built:' "$log" && sed -n '/^Loadscope is built:/,$p' "$log" || cat "$log"; } |
    grep -nE 'dconf|GSettings|schema|CRITICAL|-WARNING' >"$scratch/bad"; then
    echo "not ok $n - $label: the window appeared but stderr has warnings"
    sed 's/^/#   /' "$scratch/bad"
    failures=$((failures + 1))
    return
  fi
  echo "ok $n - $label: window titled Loadscope (screenshot $shot)"
}

echo "1..3"
window_appears build-tree bash "$src/scripts/start.sh"

dest=$scratch/destdir
n=$((n + 1))
if ! meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >"$scratch/install.log" 2>&1; then
  echo "not ok $n - meson install --destdir failed"
  sed 's/^/#   /' "$scratch/install.log" | tail -n 20
  echo "not ok $((n + 1)) - installed prefix # not tried"
  exit 1
fi
installed=$(find "$dest" -path '*/bin/loadscope' -type f | head -n 1)
if [ -x "$installed" ] && "$installed" machine >/dev/null 2>&1; then
  echo "ok $n - installed at ${installed#"$dest"}: \`loadscope machine\` runs"
else
  echo "not ok $n - installed prefix has no working bin/loadscope"
  failures=$((failures + 1))
fi
window_appears installed "$installed"
[ "$failures" -eq 0 ]
