#!/usr/bin/env bash
# The device check of the CUDA sink, on a machine WITH an NVIDIA GPU: runs,
# then tests/device/check-report.py asserts and writes $OUT/device-report.json.
#
#   bash tests/device/check.sh --bundle DIR   runs a bundle made by tests/device/bundle.sh (never builds)
#   bash tests/device/check.sh                makes that bundle here first
#
# Exit 0 every assertion held, 1 one failed, 2 nothing could be measured.
# LS_CHECK_SINK=sim rehearses it without a GPU. Details: docs/device-check.md.
set -uo pipefail

[ $# -eq 0 ] || { [ "$1" = --bundle ] && [ -n "${2:-}" ] && [ $# -eq 2 ]; } || {
  echo "check.sh: usage: check.sh [--bundle DIR]" >&2
  exit 2
}
BUNDLE=${2:-}
[ -z "$BUNDLE" ] || BUNDLE=$(cd "$BUNDLE" 2>/dev/null && pwd) || {
  echo "check.sh: no bundle folder '$2' (make it with: bash tests/device/bundle.sh)" >&2
  exit 2
}

cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
REPORT_DIR=${OUT:-$ROOT}
mkdir -p "$REPORT_DIR"
REPORT=$REPORT_DIR/device-report.json
START=$(date +%s)
DEADLINE=$((START + 225)) # leave the last seconds for the report
WORK=$(mktemp -d "${TMPDIR:-/tmp}/loadscope-device.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export XDG_DATA_HOME=$WORK/xdg XDG_CONFIG_HOME=$WORK/xdg-config
mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME"

# The report's assertions are tests/device/check-report.py's alone.
PY=$(command -v python3) || {
  echo "device-check: FAILED before measuring: python3 is needed: the checks are tests/device/check-report.py" >&2
  echo '{"ok": false, "error": "python3 is needed: the checks are tests/device/check-report.py", "runs": [], "assertions": []}' >"$REPORT"
  exit 2
}

NOTES=$WORK/notes
: >"$NOTES"
note() {
  echo "device-check: $*" >&2
  echo "$*" >>"$NOTES"
}
elapsed() { echo $(($(date +%s) - START)); }

# A report when nothing could be measured; exits 2.
give_up() {
  note "$*"
  "$PY" "$ROOT/tests/device/check-report.py" --give-up "$REPORT" "$NOTES" "$(elapsed)" "$*" "$BUNDLE"
  echo "device-check: FAILED before measuring: $*" >&2
  echo "device-check: report in $REPORT" >&2
  exit 2
}

# Read by check-report.py too: the bus ids as nvidia-smi numbers them.
SMI=$WORK/smi.csv
nvidia-smi --query-gpu=index,pci.bus_id,name,driver_version,memory.total --format=csv,noheader >"$SMI" 2>&1 ||
  echo "nvidia-smi not found or failing" >>"$SMI"
note "nvidia-smi: $(head -n 4 "$SMI" | tr '\n' ';')"
# Without --bundle: a bundle made here (tests/device/bundle.sh builds it),
# then checked and used the same way.
if [ -z "$BUNDLE" ]; then
  BUNDLE=$WORK/bundle
  note "no --bundle: building and bundling here (tests/device/bundle.sh)"
  bash "$ROOT/tests/device/bundle.sh" --out "$BUNDLE" --max-mb 0 >"$WORK/bundle.log" 2>&1 ||
    give_up "could not build a bundle here: $(grep -E '^bundle: ' "$WORK/bundle.log" | tail -n 2 | tr '\n' ' ')"
  note "built and bundled in $(elapsed) s"
fi
. "$ROOT/tests/device/use-bundle.sh"

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

# One line per run: label, workers, start, pin, non_blocking, exit code (or
# "skipped"), summary JSON, stderr; "-" where check-report.py takes the
# figure from the summary.
MANIFEST=$WORK/manifest
: >"$MANIFEST"
row() { (IFS=$'\t' && echo "$*") >>"$MANIFEST"; }
# one_run LABEL WORKERS START PIN NB COMMAND...: one run of COMMAND --no-db
# --json within 60 s, or skipped past the deadline.
one_run() {
  local name="$1 start=$3 pin=$4 non_blocking=$5" json=$WORK/$1-$3-$4-$5.json err=$WORK/$1-$3-$4-$5.err rc=skipped
  if [ "$(date +%s)" -ge "$DEADLINE" ]; then
    note "skipped $name: out of time"
  else
    timeout 60 "${@:6}" --no-db --json >"$json" 2>"$err"
    rc=$?
    echo "device-check: $name exit $rc ($(elapsed) s)" >&2
  fi
  row "$1" "$2" "$3" "$4" "$5" "$rc" "$json" "$err"
}
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
for id in $(seq 1 18); do
  "$LOADSCOPE" show "$id" --db "$DB" --json >"$WORK/sweep-run-$id.json" 2>"$WORK/sweep-run-$id.err" || break
  row sweep - - - - - "$WORK/sweep-run-$id.json" "$WORK/sweep-run-$id.err"
done

# cudaHostRegister of the memfd-backed arena, with forked and with spawned
# workers writing into it.
for start in fork spawn; do
  one_run "arena-$start" 2 "$start" arena on "$LOADSCOPE" run "${dataset[@]}" --workers 2 \
    --start "$start" --sink "$SINK" --pin arena --non-blocking on --model-ms 10 --batches 30
done

# The driver API's sink against the runtime API's at the same knobs: a
# GPU-bound synthetic dataset (no per-sample cost, 4 workers: 6400 samples/s
# are needed to keep up with a 10 ms step), so that the model step and the
# copies, not the workers, set the figures. Pairs back to back, the order
# alternating, so that a drift of the machine hits both alike.
if [ "${RUNTIME_SINK:-no}" != yes ]; then
  note "no runtime-API sink in this build (-Dcudart_sink=true): the two sinks are not compared"
else
  apis=(runtime driver)
  for pin in off staging arena; do
    for nb in off on; do
      apis=("${apis[1]}" "${apis[0]}")
      for api in "${apis[@]}"; do
        one_run "$api-api" 4 fork "$pin" "$nb" env LOADSCOPE_CUDA_API="$api" "$LOADSCOPE" run \
          --dataset synthetic --size 128x128 --workers 4 --batch-size 64 --model-ms 10 --batches 40 \
          --sink "$SINK" --pin "$pin" --non-blocking "$nb"
      done
    done
  done
  echo "device-check: driver and runtime sinks compared ($(elapsed) s)" >&2
fi

# The sink's test program: slot protocol, every pin mode, a run on the
# pinned arena with forked workers, NVML matched by PCI bus id.
UNIT_LOG=$WORK/unit.log
UNIT_RC=skipped
echo "not run" >"$UNIT_LOG"
if [ -n "$UNIT_BIN" ] && [ "$(date +%s)" -lt "$DEADLINE" ]; then
  timeout 90 "$UNIT_BIN" --tap >"$UNIT_LOG" 2>&1
  UNIT_RC=$?
  echo "device-check: test-sink-cuda exit $UNIT_RC ($(elapsed) s)" >&2
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
  PYTORCH_STATUS="ran"
  # pytorch_run NAME WHAT ARGS...: the probe's own timings of one script,
  # its summary in $REPORT_DIR/pytorch-NAME.json beside the report.
  pytorch_run() {
    LOADSCOPE_PROBE_PATH="$ROOT/data/probe" timeout 60 "$LOADSCOPE" run --target pytorch --python python3 "${@:3}" \
      --no-db --json >"$REPORT_DIR/pytorch-$1.json" 2>"$WORK/pytorch-$1.log"
    local rc=$?
    PYTORCH_STATUS="$PYTORCH_STATUS; $2: exit $rc"
    [ $rc -eq 0 ] || note "pytorch $2 failed: $(tail -n 1 "$WORK/pytorch-$1.log")"
  }
  # The unmodified ImageFolder script, pin_memory off and on.
  for pin in off staging; do
    pytorch_run "$pin" "pin $pin" --script "$ROOT/tests/pytorch/imagefolder.py" --script-args "$WORK/jpeg" \
      --workers 2 --pin "$pin" --batch-size 32 --batches 10
  done
  # A script that copies each batch to the GPU itself: the probe times
  # those copies with CUDA events (checked by check-report.py).
  pytorch_run copy cuda_copy.py --script "$ROOT/tests/pytorch/cuda_copy.py" --workers 1 --batches 20
fi
note "pytorch: $PYTORCH_STATUS"

CHARTS=$WORK/charts.tsv
for chart in utilization wait memory; do
  png=$REPORT_DIR/chart-$chart.png
  if [ -z "$SWEEP_ID" ]; then
    result=(1 "no sweep")
  elif timeout 60 "$LOADSCOPE" export --db "$DB" --sweep "$SWEEP_ID" --format png --chart "$chart" --force \
    -o "$png" >"$WORK/chart-$chart.log" 2>&1; then
    result=(0 "$png")
  else
    result=(1 "$(tail -n 2 "$WORK/chart-$chart.log" | tr '\n\t' '  ')")
  fi
  printf '%s\t%s\t%s\n' "$chart" "${result[@]}"
done >"$CHARTS"

RUNTIME_SINK=${RUNTIME_SINK:-no} "$PY" "$ROOT/tests/device/check-report.py" "$MANIFEST" "$REPORT" "$NOTES" \
  "$dataset_kind" "$START" "$UNIT_RC" "$UNIT_LOG" "$BUNDLE" "$SMI" "$PYTORCH_STATUS" "${torch_cuda:-}" "$CHARTS"
rc=$?
echo "device-check: report in $REPORT ($(elapsed) s)"
exit $rc
