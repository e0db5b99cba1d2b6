#!/usr/bin/env bash
# Issue 38's figures side by side, in one run on this machine (a shared
# machine drifts: compare only figures from the same run):
#
#   bench/first-batch-side-by-side.sh BUILD_DIR IMAGES_DIR [REPS]
#
# 1. the crop-region ceiling: the anchors' decode_limit, mode rrc_roi_full
#    (decode only the crop's rows, same output as torchvision's pipeline), on
#    every core at once; the sum of each core's best img/s;
# 2. bench-first-batch: the first batch at 2 workers against one batch's
#    build on one worker, the write stage's share of the workers' busy time
#    in a 40-batch run at 2 workers, its throughput and page faults;
# 3. PyTorch's DataLoader on the same images (the anchors' script: 2 fork
#    workers, 2 epochs), where torch imports.
#
# 4. with LS_BENCH_HUGE_PAGES=N (root, Linux): bench-first-batch again
#    with N 2 MiB huge pages reserved (vm.nr_hugepages; the arena takes
#    them when they cover it), the old value put back on exit.
#
# LS_ANCHORS is the anchors folder (decode_limit.c, pytorch_dataloader.py;
# default ../shared/anchors beside this checkout). decode_limit is built
# into BUILD_DIR/bench once (gcc, libturbojpeg); without it the ceiling is
# left out and said so.
set -uo pipefail

build=${1:?usage: first-batch-side-by-side.sh BUILD_DIR IMAGES_DIR [REPS]}
images=${2:?usage: first-batch-side-by-side.sh BUILD_DIR IMAGES_DIR [REPS]}
reps=${3:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
anchors=${LS_ANCHORS:-$here/../shared/anchors}
cores=$(nproc)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

ceiling=
limit="$build/bench/decode_limit"
if [ ! -x "$limit" ] && [ -f "$anchors/decode_limit.c" ]; then
  gcc -O2 -o "$limit" "$anchors/decode_limit.c" -lturbojpeg -ljpeg -lm 2>"$out/gcc.txt" \
    || echo "decode_limit did not build (no libturbojpeg?): $(head -c 300 "$out/gcc.txt")"
fi
if [ -x "$limit" ]; then
  echo "== the crop-region ceiling: decode_limit rrc_roi_full on $cores cores at once"
  for ((c = 0; c < cores; c++)); do
    taskset -c "$c" "$limit" "$images" 3 rrc_roi_full >"$out/limit-$c.txt" 2>&1 &
  done
  wait
  # Its table: mode, img/s best, img/s median, ...
  ceiling=$(cat "$out"/limit-*.txt | awk '$1 == "rrc_roi_full" { s += $2 } END { if (s > 0) printf "%.0f", s }')
  echo "   ceiling: ${ceiling:-unknown} img/s (sum over the cores of each one's best pass)"
else
  echo "== no decode_limit (set LS_ANCHORS to the anchors folder): the ceiling is left out"
fi

echo "== bench-first-batch ($reps reps)"
"$build/bench/bench-first-batch" "$images" "$build/loader/loadscope-worker" "$reps" | tee "$out/first.txt"
result=$(grep '^RESULT ' "$out/first.txt")
value () { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$result"; }

huge=${LS_BENCH_HUGE_PAGES:-}
huge_result=
nr=/proc/sys/vm/nr_hugepages
if [ -n "$huge" ] && [ -w "$nr" ]; then
  old_nr=$(cat "$nr")
  trap 'echo "$old_nr" >"$nr"; rm -rf "$out"' EXIT
  echo "$huge" >"$nr"
  echo "== bench-first-batch ($reps reps) with $(cat "$nr") huge pages of 2 MiB reserved (vm.nr_hugepages; was $old_nr)"
  "$build/bench/bench-first-batch" "$images" "$build/loader/loadscope-worker" "$reps" | tee "$out/first-huge.txt"
  echo "$old_nr" >"$nr"
  huge_result=$(grep '^RESULT ' "$out/first-huge.txt")
elif [ -n "$huge" ]; then
  echo "== LS_BENCH_HUGE_PAGES: $nr cannot be written here (root only): the huge-page run is left out"
fi

pytorch=
if [ -f "$anchors/pytorch_dataloader.py" ] && /usr/bin/python3 -c 'import torch, torchvision' 2>/dev/null; then
  echo "== PyTorch's DataLoader: 2 fork workers, 2 epochs"
  (cd "$out" && /usr/bin/python3 "$anchors/pytorch_dataloader.py" --data "$images" --workers 2 --contexts fork \
    --persistent 0 --reps 1 --out "$out/pytorch.json" >"$out/pytorch.txt" 2>&1)
  pytorch=$(/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print("%.0f" % r[0]["samples_per_s"])' \
    "$out/pytorch.json" 2>/dev/null)
  echo "   PyTorch: ${pytorch:-failed (see its output)} img/s"
else
  echo "== no PyTorch here (or no anchors): its column is left out"
fi

thr=$(value throughput)
echo
echo "== side by side, this run ($(uname -r), $cores cores):"
printf '   %-46s %s ms vs %s ms = %s (goal <= 1.0, ideally 0.8)\n' "first batch at 2 workers vs one build, 1 worker" \
  "$(value first_2w_ms)" "$(value build_1w_ms)" "$(value ratio)"
printf '   %-46s %s %% (goal <= 10 %%)\n' "write stage / busy, 40 batches at 2 workers" \
  "$(awk -v s="$(value write_share)" 'BEGIN { printf "%.1f", s * 100 }')"
if [ -n "$huge_result" ]; then
  result=$huge_result
  printf '   %-46s %s ms vs %s ms = %s\n' "the same, arena in reserved 2 MiB pages" \
    "$(value first_2w_ms)" "$(value build_1w_ms)" "$(value ratio)"
  printf '   %-46s %s %%\n' "write stage / busy, reserved 2 MiB pages" \
    "$(awk -v s="$(value write_share)" 'BEGIN { printf "%.1f", s * 100 }')"
  result=$(grep '^RESULT ' "$out/first.txt")
fi
if [ -n "$ceiling" ]; then
  printf '   %-46s %s img/s vs %s = %s (goal >= 1.0)\n' "throughput vs the crop-region ceiling" "$thr" "$ceiling" \
    "$(awk -v a="$thr" -v b="$ceiling" 'BEGIN { printf "%.2f", a / b }')"
fi
if [ -n "$pytorch" ]; then
  printf '   %-46s %s img/s vs %s = %sx (goal >= 4)\n' "throughput vs PyTorch's DataLoader" "$thr" "$pytorch" \
    "$(awk -v a="$thr" -v b="$pytorch" 'BEGIN { printf "%.1f", a / b }')"
fi
