#!/usr/bin/env bash
# Device check for the CUDA sink, on a machine WITH an NVIDIA GPU.
#
#   bash tests/device/check.sh --bundle DIR   runs the bundle made here by
#                                             tests/device/bundle.sh (never builds)
#   bash tests/device/check.sh                builds what it needs first
#                                             (tests/device/build-here.sh)
#
# Makes a small JPEG dataset (a synthetic one where JPEG is not built) and
# checks first that a GPU answers (exit 2, "no usable GPU", when none does).
# Then, as one recorded sweep (workers 1,2,4 x the three pin modes x
# blocking and non-blocking copies), two runs on the registered arena with
# forked and with spawned workers, the driver-API sink against the old
# runtime-API sink at the same knobs (LOADSCOPE_CUDA_API=runtime; the
# bundle is built with -Dcudart_sink=true until that comparison has held
# once), and the sink's own test program:
#   - every run used the real GPU: status done, sink "cuda", simulated false;
#   - pinned copies (staging, arena) move more bytes per ms than pageable;
#   - gpu_util_exact is in (0, 1], and the NVML series is present;
#   - the model step lasts --model-ms (10 ms) within 5 % (median);
#   - the pinned arena copies fewer bytes on the host than staging, and
#     cudaHostRegister of the memfd-backed arena works with fork and spawn;
#   - NVML's device is the CUDA device, matched by PCI bus id;
#   - per pin mode and non_blocking, the driver-API sink's model step, copy
#     and throughput (medians) are within 5 % of the runtime-API sink's.
# The PyTorch target is run only where `loadscope run` has
# --target and python3's torch sees CUDA; otherwise the report says skipped.
# Writes $OUT/device-report.json (./device-report.json without $OUT) with
# every run's summary and each assertion's result, and the sweep's three
# headline charts ($OUT/chart-*.png); prints a table; exits 0 when
# everything held, 1 when an assertion failed, 2 when it could not build or
# run at all. Meant to finish well within 4 minutes.
set -uo pipefail

BUNDLE=
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) BUNDLE=${2:-}; [ -n "$BUNDLE" ] || { echo "check.sh: --bundle needs a folder" >&2; exit 2; }; shift 2 ;;
    *) echo "check.sh: unknown argument '$1' (usage: check.sh [--bundle DIR])" >&2; exit 2 ;;
  esac
done
[ -z "$BUNDLE" ] || BUNDLE=$(cd "$BUNDLE" 2>/dev/null && pwd) || {
  echo "check.sh: no bundle folder '$BUNDLE' (make it with: bash tests/device/bundle.sh)" >&2
  exit 2
}

cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
REPORT_DIR=${OUT:-$ROOT}
mkdir -p "$REPORT_DIR"
REPORT=$REPORT_DIR/device-report.json
BUILD=build-device
START=$(date +%s)
DEADLINE=$((START + 225)) # leave the last seconds for the report
WORK=$(mktemp -d "${TMPDIR:-/tmp}/loadscope-device.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export XDG_DATA_HOME=$WORK/xdg XDG_CONFIG_HOME=$WORK/xdg-config
mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME"

NOTES=$WORK/notes
: >"$NOTES"
note() {
  echo "device-check: $*" >&2
  echo "$*" >>"$NOTES"
}
elapsed() { echo $(($(date +%s) - START)); }

PY=$(command -v python3 || true)

# JSON string from stdin (for the shell-only report).
json_str() {
  local s
  s=$(cat | tr -d '\000-\011\013-\037' | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' | awk 'BEGIN{ORS="\\n"} {print}')
  printf '"%s"' "$s"
}

# The bundle's description (bundle-info.txt), one line; "" without one.
bundle_info() {
  [ -n "$BUNDLE" ] && [ -f "$BUNDLE/bundle-info.txt" ] && tr '\n' ';' <"$BUNDLE/bundle-info.txt"
  return 0
}

# A report when nothing could be measured; exits 2.
give_up() {
  note "$*"
  if [ -n "$PY" ]; then
    "$PY" - "$REPORT" "$NOTES" "$(elapsed)" "$*" "$(bundle_info)" <<'PY'
import json, sys
report, notes, elapsed, why, bundle = sys.argv[1:6]
json.dump({"ok": False, "error": why, "elapsed_s": int(elapsed), "bundle": bundle or None,
           "notes": open(notes).read().splitlines(), "runs": [], "assertions": []},
          open(report, "w"), indent=2)
PY
  else
    printf '{"ok": false, "error": %s, "elapsed_s": %s, "bundle": %s, "notes": %s, "runs": [], "assertions": []}\n' \
      "$(printf '%s' "$*" | json_str)" "$(elapsed)" "$(bundle_info | json_str)" "$(json_str <"$NOTES")" >"$REPORT"
  fi
  echo "device-check: FAILED before measuring: $*" >&2
  echo "device-check: report in $REPORT" >&2
  exit 2
}

# The report's assertions are tests/device/check-report.py's alone.
[ -n "$PY" ] || give_up "python3 is needed: the checks are tests/device/check-report.py"

# ------------------------------------------------------------ the machine

if ! command -v nvcc >/dev/null 2>&1; then
  for d in /usr/local/cuda/bin /usr/local/cuda-*/bin /opt/cuda/bin; do
    if [ -x "$d/nvcc" ]; then
      export PATH="$d:$PATH"
      break
    fi
  done
fi
if command -v nvidia-smi >/dev/null 2>&1; then
  note "nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -n 4 | tr '\n' ';')"
else
  note "nvidia-smi not found"
fi
if [ -n "$BUNDLE" ]; then
  :
elif command -v nvcc >/dev/null 2>&1; then
  note "nvcc: $(command -v nvcc), $(nvcc --version | grep -o 'release [0-9.]*' | head -n 1)"
else
  note "nvcc not found (PATH, /usr/local/cuda/bin)"
fi


if [ -n "$BUNDLE" ]; then
  . "$ROOT/tests/device/use-bundle.sh"
else
  . "$ROOT/tests/device/build-here.sh"
fi
# ------------------------------------------------------------ a GPU?

# LS_CHECK_SINK=sim rehearses the whole check on a machine without a GPU
# (its assertions then fail, but every step and the report are exercised).
SINK=${LS_CHECK_SINK:-cuda}
[ "$SINK" = cuda ] || note "LS_CHECK_SINK=$SINK: a rehearsal, not a device check"

# One batch on the cuda sink: without a GPU, stop here (exit 2) rather
# than fail every run the same way.
PROBE=$WORK/probe.json
timeout 90 "$LOADSCOPE" run --dataset synthetic --count 16 --size 8x8 --batch-size 8 --batches 1 --warmup 0 \
  --sink "$SINK" --model-ms 1 --no-db --json >"$PROBE" 2>"$WORK/probe.err"
probe_rc=$?
if [ "$probe_rc" -ne 0 ]; then
  why=$(grep -o '"error" *: *"[^"]*"' "$PROBE" | head -n 1 | sed 's/^"error" *: *"//; s/"$//')
  [ -n "$why" ] || why=$(grep -v '^$' "$WORK/probe.err" | tail -n 2 | tr '\n' ' ')
  case "$why" in
    *"no usable GPU"* | *"no CUDA device"* | *CUDA_ERROR_NO_DEVICE* | *cudaErrorNoDevice* | *cudaErrorInsufficientDriver*)
      give_up "no usable GPU: $why" ;;
    *) give_up "the first run on the cuda sink failed (exit $probe_rc): $why" ;;
  esac
fi
note "a GPU answers: $(grep -o '"device" *: *"[^"]*"' "$PROBE" | head -n 1) ($(elapsed) s)"

# ------------------------------------------------------------ dataset

dataset=()
if [ "$jpeg" = yes ] && timeout 60 "$LOADSCOPE" make-dataset --format jpeg-dir --count 400 "$WORK/jpeg" \
  >"$WORK/make.log" 2>&1; then
  dataset=(--dataset "$WORK/jpeg")
  dataset_kind="jpeg-dir"
else
  [ "$jpeg" = yes ] && note "make-dataset failed ($(tail -n 1 "$WORK/make.log")); using a synthetic dataset"
  dataset=(--dataset synthetic --size 224x224 --sample-cost-us 300)
  dataset_kind=synthetic
fi
note "dataset: $dataset_kind, ready at $(elapsed) s"

# ------------------------------------------------------------ runs

# One line per run: label, workers, start, pin, non_blocking, exit code,
# summary JSON, stderr.
MANIFEST=$WORK/manifest
: >"$MANIFEST"
DB=$WORK/device.sqlite

# The sweep: recorded, so that its charts can be drawn.
left=$((DEADLINE - $(date +%s) - 110)) # room for the arena runs, the two sinks and the test program
[ "$left" -gt 140 ] && left=140
SWEEP_ID=
if [ "$left" -lt 20 ]; then
  note "sweep skipped: out of time"
else
  timeout "$left" "$LOADSCOPE" sweep "${dataset[@]}" --workers 1,2,4 --pin off,staging,arena \
    --non-blocking off,on --sink "$SINK" --model-ms 10 --batches 40 --db "$DB" --json \
    >"$WORK/sweep.json" 2>"$WORK/sweep.err"
  sweep_rc=$?
  echo "device-check: sweep exit $sweep_rc ($(elapsed) s)" >&2
  [ "$sweep_rc" -eq 0 ] || note "sweep exit $sweep_rc: $(grep -v '^\[' "$WORK/sweep.err" | tail -n 3 | tr '\n' ' ')"
  SWEEP_ID=1 # the first sweep of a new store
fi
# Each recorded run, one file each (the shell-only checks read them so).
for id in $(seq 1 18); do
  json=$WORK/sweep-run-$id.json
  "$LOADSCOPE" show "$id" --db "$DB" --json >"$json" 2>"$WORK/sweep-run-$id.err" || break
  f=$(tr -d ' \n\t\r' <"$json")
  field() { sed -n "s/^{\"run_id\".*\"$1\":\"\{0,1\}\([^\",}]*\)\"\{0,1\}[,}].*/\1/p" <<<"$f" | head -n 1; }
  status=$(field status)
  nb=off
  [ "$(field non_blocking)" = true ] && nb=on
  rc=1
  [ "$status" = done ] && rc=0
  printf 'sweep\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(field workers)" "$(field start)" "$(field pin)" "$nb" "$rc" \
    "$json" "$WORK/sweep-run-$id.err" >>"$MANIFEST"
done

# cudaHostRegister of the memfd-backed arena, with forked and with spawned
# workers writing into it.
for start in fork spawn; do
  json=$WORK/arena-$start.json
  errf=$WORK/arena-$start.err
  if [ "$(date +%s)" -ge "$DEADLINE" ]; then
    note "skipped pin=arena start=$start: out of time"
    printf 'arena-%s\t2\t%s\tarena\ton\tskipped\t%s\t%s\n' "$start" "$start" "$json" "$errf" >>"$MANIFEST"
    continue
  fi
  timeout 60 "$LOADSCOPE" run "${dataset[@]}" --workers 2 --start "$start" --sink "$SINK" --pin arena \
    --non-blocking on --model-ms 10 --batches 30 --no-db --json >"$json" 2>"$errf"
  rc=$?
  printf 'arena-%s\t2\t%s\tarena\ton\t%s\t%s\t%s\n' "$start" "$start" "$rc" "$json" "$errf" >>"$MANIFEST"
  echo "device-check: pin=arena start=$start exit $rc ($(elapsed) s)" >&2
done

# The driver API's sink against the runtime API's at the same knobs: a
# GPU-bound synthetic dataset (no per-sample cost, 4 workers: 6400 samples/s
# are needed to keep up with a 10 ms step), so that the model step and the
# copies, not the workers, set the figures. Pairs back to back, the order
# alternating, so that a drift of the machine hits both alike.
CMP_DATA=(--dataset synthetic --size 128x128 --workers 4 --batch-size 64 --model-ms 10 --batches 40)
if [ "${RUNTIME_SINK:-no}" != yes ]; then
  note "no runtime-API sink in this build (-Dcudart_sink=true): the two sinks are not compared"
else
  i=0
  for pin in off staging arena; do
    for nb in off on; do
      i=$((i + 1))
      apis=(driver runtime)
      [ $((i % 2)) -eq 0 ] && apis=(runtime driver)
      for api in "${apis[@]}"; do
        json=$WORK/api-$api-$pin-$nb.json
        errf=$WORK/api-$api-$pin-$nb.err
        if [ "$(date +%s)" -ge "$DEADLINE" ]; then
          printf '%s-api\t4\tfork\t%s\t%s\tskipped\t%s\t%s\n' "$api" "$pin" "$nb" "$json" "$errf" >>"$MANIFEST"
          continue
        fi
        LOADSCOPE_CUDA_API=$api timeout 60 "$LOADSCOPE" run "${CMP_DATA[@]}" --sink "$SINK" --pin "$pin" \
          --non-blocking "$nb" --no-db --json >"$json" 2>"$errf"
        rc=$?
        printf '%s-api\t4\tfork\t%s\t%s\t%s\t%s\t%s\n' "$api" "$pin" "$nb" "$rc" "$json" "$errf" >>"$MANIFEST"
      done
    done
  done
  echo "device-check: driver and runtime sinks compared ($(elapsed) s)" >&2
fi

# The sink's test program: slot protocol, every pin mode, a run on the
# pinned arena with forked workers, NVML matched by PCI bus id.
UNIT_LOG=$WORK/unit.log
UNIT_RC=skipped
if [ -n "$UNIT_BIN" ] && [ "$(date +%s)" -lt "$DEADLINE" ]; then
  timeout 90 "$UNIT_BIN" --tap >"$UNIT_LOG" 2>&1
  UNIT_RC=$?
  echo "device-check: test-sink-cuda exit $UNIT_RC ($(elapsed) s)" >&2
else
  echo "not run" >"$UNIT_LOG"
fi

# The PyTorch target, where this build and this machine have it.
torch_cuda=$(timeout 60 python3 -c "import torch; print(torch.cuda.is_available())" 2>/dev/null | tail -n 1)
if ! "$LOADSCOPE" run --help-all 2>/dev/null | grep -q -- '--target'; then
  PYTORCH_STATUS="skipped: no --target pytorch in this build (python3 torch.cuda.is_available(): ${torch_cuda:-no torch})"
elif [ "$torch_cuda" != True ]; then
  PYTORCH_STATUS="skipped: python3 torch.cuda.is_available() is not True (${torch_cuda:-no torch})"
elif [ "$dataset_kind" != jpeg-dir ]; then
  PYTORCH_STATUS="skipped: no JPEG dataset for tests/pytorch/imagefolder.py"
elif [ "$(date +%s)" -ge "$DEADLINE" ]; then
  PYTORCH_STATUS="skipped: no time left"
else
  # The unmodified ImageFolder script, pin_memory off and on (the probe's
  # own timings; its summaries go into the report beside the others).
  PYTORCH_STATUS="ran"
  for pin in off staging; do
    LOADSCOPE_PROBE_PATH="$ROOT/data/probe" timeout 60 "$LOADSCOPE" run --target pytorch \
      --script "$ROOT/tests/pytorch/imagefolder.py" --python python3 --script-args "$WORK/jpeg" \
      --workers 2 --pin "$pin" --batch-size 32 --batches 10 --no-db --json \
      >"$WORK/pytorch-$pin.json" 2>"$WORK/pytorch-$pin.log"
    rc=$?
    PYTORCH_STATUS="$PYTORCH_STATUS; pin $pin: exit $rc"
    [ $rc -eq 0 ] || note "pytorch pin $pin failed: $(tail -n 1 "$WORK/pytorch-$pin.log")"
    cp "$WORK/pytorch-$pin.json" "$REPORT_DIR/pytorch-$pin.json" 2>/dev/null
  done
  # A script that copies each batch to the GPU itself: the probe times
  # those copies with CUDA events (checked by check-report.py).
  LOADSCOPE_PROBE_PATH="$ROOT/data/probe" timeout 60 "$LOADSCOPE" run --target pytorch \
    --script "$ROOT/tests/pytorch/cuda_copy.py" --python python3 --workers 1 --batches 20 --no-db --json \
    >"$REPORT_DIR/pytorch-copy.json" 2>"$WORK/pytorch-copy.log"
  PYTORCH_STATUS="$PYTORCH_STATUS; cuda_copy.py: exit $?"
fi
note "pytorch: $PYTORCH_STATUS"

# ------------------------------------------------------------ charts

CHARTS=$WORK/charts.tsv
: >"$CHARTS"
for chart in utilization wait memory; do
  png=$REPORT_DIR/chart-$chart.png
  if [ -z "$SWEEP_ID" ]; then
    printf '%s\t1\tno sweep\n' "$chart" >>"$CHARTS"
    continue
  fi
  if timeout 60 "$LOADSCOPE" export --db "$DB" --sweep "$SWEEP_ID" --format png --chart "$chart" --force \
    -o "$png" >"$WORK/chart-$chart.log" 2>&1; then
    printf '%s\t0\t%s\n' "$chart" "$png" >>"$CHARTS"
  else
    printf '%s\t1\t%s\n' "$chart" "$(tail -n 2 "$WORK/chart-$chart.log" | tr '\n\t' '  ')" >>"$CHARTS"
  fi
done

# ------------------------------------------------------------ checks

smi=$WORK/smi.csv
nvidia-smi --query-gpu=index,pci.bus_id,name --format=csv,noheader >"$smi" 2>/dev/null || : >"$smi"
RUNTIME_SINK=${RUNTIME_SINK:-no} "$PY" "$ROOT/tests/device/check-report.py" "$MANIFEST" "$REPORT" "$NOTES" \
  "$dataset_kind" "$START" "$UNIT_RC" "$UNIT_LOG" "$(bundle_info)" "$smi" "$PYTORCH_STATUS" "${torch_cuda:-}" "$CHARTS"
rc=$?
echo "device-check: report in $REPORT ($(elapsed) s)"
exit $rc
