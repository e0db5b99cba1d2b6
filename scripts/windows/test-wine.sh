#!/usr/bin/env bash
# End-to-end test of the Windows zip under Wine, from the unpacked zip in a
# throw-away prefix (make-dataset, run, the CUDA sink, a sweep, machine,
# history, exports, the window), then back on Linux: the Windows bundle
# imported next to a fork,spawn sweep and the start-cost chart drawn.
#   test-wine.sh ZIP LINUX_LOADSCOPE                  details: docs/windows.md
# Artifacts in tests/artifacts/windows/; ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
zip=${1:?zip}
[[ $zip = /* ]] || zip=$root/$zip
linux=${2:?the Linux loadscope}
art=$root/tests/artifacts/windows
LS_TAG=wine-e2e
. scripts/windows/wine-lib.sh win-e2e
rm -rf "$art"
mkdir -p "$art"

# a space and a non-ASCII letter in the folder's name, as in the dataset's
unpacked="$tmp/Loadscope tést"
unzip -q "$zip" -d "$unpacked" || { bad "unzip $zip"; finish; }
exe=$(ls "$unpacked"/*/bin/loadscope.exe)
say "unpacked into $unpacked"
libs=$(ls "$unpacked"/*/share/loadscope/libraries.txt 2>/dev/null | head -n 1)
if [ -n "$libs" ] && grep -q "^glib2.0 .*Debian's patches: [1-9][0-9]* of" "$libs"; then
  ok "the zip's libraries carry Debian's patches ($(grep -c "Debian's patches: [1-9]" "$libs") with patches; share/loadscope/libraries.txt)"
else
  bad "share/loadscope/libraries.txt does not say GLib has Debian's patches"
fi
wine_ready

# ls_win NAME LIMIT ARGS...: loadscope.exe under Wine; stdout in $art/NAME.out
ls_win() {
  local name=$1 limit=$2 t0=$SECONDS rc
  shift 2
  wine_run "$art/$name.out" "$art/$name.err" "$limit" "$exe" "$@"
  rc=$?
  say "$name: exit $rc in $((SECONDS - t0)) s"
  [ "$rc" -eq 0 ] || sed 's/^/    /' "$art/$name.err" | tail -n 15
  return $rc
}

# 1. a JPEG folder and a run with 2 spawned workers (a space and non-ASCII
# letters: arguments are read as UTF-8, not in the ANSI code page)
imgs="$tmp/imgs dír ü"
if ls_win make-dataset 600 make-dataset --format jpeg-dir --count 64 "$(win_path "$imgs")"; then
  ok "make-dataset: $(find "$imgs" -name '*.jpg' | wc -l) JPEGs"
else
  bad "make-dataset"
fi
if ls_win run-spawn 600 run --dataset "$(win_path "$imgs")" --workers 2 --json; then
  if python3 scripts/windows/wine-checks.py run-spawn "$art/run-spawn.out"
  then ok "run --workers 2 (non-ASCII path, no --start): done, spawn by default, memory as private bytes/working set"; else bad "run's JSON (see $art/run-spawn.out)"; fi
else
  bad "run --workers 2 on $imgs"
fi

# 1b. the CUDA sink on the stand-in driver (tests/fake-cuda-driver.c), every
# pin mode, blocking and not; without it, --sink auto's fallback.
standin=$root/build-win/tests/fake-cuda-driver.dll
if [ -f "$standin" ]; then
  cuda_ok=0
  for pin in off staging arena; do
    for nb in off on; do
      if LOADSCOPE_CUDA_LIBRARY=$(win_path "$standin") ls_win "cuda-$pin-$nb" 300 run --dataset synthetic --count 256 \
           --batches 8 --workers 1 --sink cuda --pin "$pin" --non-blocking "$nb" --model-ms 2 --no-db --json &&
         python3 scripts/windows/wine-checks.py cuda "$art/cuda-$pin-$nb.out"
      then cuda_ok=$((cuda_ok + 1)); fi
    done
  done
  [ "$cuda_ok" -eq 6 ] && ok "run --sink cuda on the stand-in nvcuda: 6 of 6 pin/non-blocking runs with copy and compute times" ||
    bad "run --sink cuda on the stand-in driver: $cuda_ok of 6 runs (see $art/cuda-*.out)"
else
  say "SKIPPED run --sink cuda: no stand-in driver at $standin (a build without the CUDA sink)"
fi
if ls_win sink-auto 300 run --dataset synthetic --count 64 --batches 4 --sink auto --no-db --json &&
   grep -q '"sink" *: *"sim"' "$art/sink-auto.out" && grep -q 'nvcuda.dll not found' "$art/sink-auto.out"; then
  ok "--sink auto without nvcuda.dll: the simulated GPU, saying 'nvcuda.dll not found'"
else
  bad "--sink auto without a driver (see $art/sink-auto.out)"
fi

# 2. a sweep into the Windows store, history, exports
if ls_win sweep 900 sweep --dataset synthetic --workers 0,1,2 --start spawn --batches 12; then ok "sweep --workers 0,1,2"; else bad "sweep"; fi
store=$(find "$WINEPREFIX/drive_c/users" -path '*AppData/Local/loadscope/history.sqlite' | head -n 1)
[ -n "$store" ] && ok "the store is %LOCALAPPDATA%\\loadscope\\history.sqlite" || bad "no history.sqlite under %LOCALAPPDATA%\\loadscope"
if ls_win machine 120 machine; then
  grep -q 'Windows (Wine ' "$art/machine.out" && ok "machine says $(grep -o 'Windows (Wine [^)]*)' "$art/machine.out")" ||
    bad "machine does not say Windows (Wine x.y): $(grep os: "$art/machine.out")"
else bad "machine"; fi
if ls_win history 120 history && [ "$(grep -c . "$art/history.out")" -ge 4 ]; then ok "history lists the runs"; else bad "history"; fi
bundle=$tmp/windows-bundle.sqlite
if ls_win export-sqlite 120 export --all --format sqlite -o "$(win_path "$bundle")" && [ -s "$bundle" ]; then
  ok "export --format sqlite"; cp "$bundle" "$art/"
else bad "export --format sqlite"; fi
if ls_win export-png 300 export --sweep 1 --format png -o "$(win_path "$art/windows-sweep.png")" &&
   [ "$(head -c 8 "$art/windows-sweep.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
  ok "export --format png"
else bad "export --format png"; fi

# 3. the window, under Xvfb: titled Loadscope, its text in a font Pango loads
# (else GTK draws empty boxes and warns "g_object_ref: assertion" for each)
if [ ! -f "$(dirname "$exe")/libgtk-4-1.dll" ]; then
  say "SKIPPED the window: this zip has no window (built without --gui)"
elif ! command -v xvfb-run >/dev/null || ! command -v import >/dev/null; then
  bad "the window: xvfb-run and import (ImageMagick) are needed (scripts/setup.sh --tests installs them)"
else
  cat > "$tmp/window.sh" <<'W'
#!/usr/bin/env bash
# under Xvfb: start the window, wait for its title, take a screenshot
"$WINE" "$EXE" >"$ART/window.out" 2>&1 &
for _ in $(seq 1 90); do
  sleep 1
  xwininfo -root -tree 2>/dev/null | grep -q '"Loadscope": ("loadscope.exe"' && break
done
sleep 5 # the first frame
xwininfo -root -tree 2>/dev/null | grep '"Loadscope": ("loadscope.exe"' >"$ART/window.geometry"
import -window root "$ART/window-wine.png"
"$WINESERVER" -k
W
  t0=$(date +%s)
  # Wine's desktop process started with the prefix, without a display: a
  # fresh one must start under Xvfb
  timeout 30 "$WINESERVER" -k >/dev/null 2>&1
  timeout 60 "$WINESERVER" -w >/dev/null 2>&1
  WINE=$WINE EXE=$exe ART=$art WINESERVER=$WINESERVER GTK_A11Y=none \
    timeout 240 xvfb-run -a -s "-screen 0 1280x800x24" bash "$tmp/window.sh" >/dev/null 2>&1
  sed -i 's/\r$//' "$art/window.out"
  say "window: $(( $(date +%s) - t0 )) s"
  if [ -s "$art/window.geometry" ]; then
    ok "the window opens, titled Loadscope ($(grep -o '[0-9]*x[0-9]*+[0-9]*+[0-9]*' "$art/window.geometry" | head -n 1)), screenshot window-wine.png"
  else
    bad "no window titled Loadscope within 90 s (see $art/window.out)"
  fi
  if [ -s "$art/window.geometry" ] && ! grep -q "g_object_ref: assertion" "$art/window.out"; then
    ok "the window's text is drawn in a font Pango loads"
  else
    bad "the window's font: $(grep -c 'g_object_ref: assertion' "$art/window.out") font warnings (see $art/window.out)"
  fi
fi

# 4. Linux: its own fork and spawn runs, the Windows bundle imported, the chart
db=$tmp/linux.sqlite
t0=$(date +%s)
if "$linux" sweep --db "$db" --dataset synthetic --workers 1,2 --start fork,spawn --batches 12 >"$art/linux-sweep.out" 2>&1; then
  ok "Linux sweep fork,spawn ($(( $(date +%s) - t0 )) s)"
else bad "Linux sweep"; tail -n 15 "$art/linux-sweep.out"; fi
if [ -s "$bundle" ] && "$linux" import --db "$db" "$bundle" >"$art/linux-import.out" 2>&1; then ok "Linux imports the Windows bundle"; else bad "import"; cat "$art/linux-import.out"; fi
if "$linux" export --db "$db" --all --chart start-cost --format png -o "$art/start-cost.png" >"$art/linux-export.out" 2>&1 &&
   [ -s "$art/start-cost.png" ]; then ok "export --all --chart start-cost"; else bad "start-cost chart"; cat "$art/linux-export.out"; fi
if python3 scripts/windows/wine-checks.py start-cost "$db"
then ok "start-up by platform: Linux fork, Linux spawn, Windows (Wine) spawn"; else bad "start-up figures"; fi

say "artifacts in tests/artifacts/windows/"
finish
