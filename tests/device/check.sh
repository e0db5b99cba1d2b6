#!/usr/bin/env bash
# Device check for the CUDA sink, on a machine WITH an NVIDIA GPU.
#
# Builds only what it needs (loadscope and loadscope-worker, CUDA on, no GUI,
# no HDF5), makes a small JPEG dataset (a synthetic one where JPEG is not
# built), runs the three pin modes with blocking and non-blocking copies at
# 2 workers, and checks:
#   - every run used the real GPU: status done, sink "cuda", simulated false;
#   - pinned copies (staging, arena) move more bytes per ms than pageable;
#   - gpu_util_exact is in (0, 1], and the NVML series is present;
#   - the model step lasts --model-ms (10 ms) within 5 % (median);
#   - the pinned arena copies fewer bytes on the host than staging.
# Writes $OUT/device-report.json (./device-report.json without $OUT) with
# every run's summary and each assertion's result, prints a table, and exits
# 0 when everything held, 1 when an assertion failed, 2 when it could not
# build or run at all. Meant to finish well within 4 minutes.
set -uo pipefail

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
[ -z "${LS_CHECK_NO_PYTHON:-}" ] || PY= # to test the shell-only checks

# JSON string from stdin (for the shell-only report).
json_str() {
  local s
  s=$(cat | tr -d '\000-\011\013-\037' | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' | awk 'BEGIN{ORS="\\n"} {print}')
  printf '"%s"' "$s"
}

# A report when nothing could be measured; exits 2.
give_up() {
  note "$*"
  if [ -n "$PY" ]; then
    "$PY" - "$REPORT" "$NOTES" "$(elapsed)" "$*" <<'PY'
import json, sys
report, notes, elapsed, why = sys.argv[1:5]
json.dump({"ok": False, "error": why, "elapsed_s": int(elapsed),
           "notes": open(notes).read().splitlines(), "runs": [], "assertions": []},
          open(report, "w"), indent=2)
PY
  else
    printf '{"ok": false, "error": %s, "elapsed_s": %s, "notes": %s, "runs": [], "assertions": []}\n' \
      "$(printf '%s' "$*" | json_str)" "$(elapsed)" "$(json_str <"$NOTES")" >"$REPORT"
  fi
  echo "device-check: FAILED before measuring: $*" >&2
  echo "device-check: report in $REPORT" >&2
  exit 2
}

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
if command -v nvcc >/dev/null 2>&1; then
  note "nvcc: $(command -v nvcc), $(nvcc --version | grep -o 'release [0-9.]*' | head -n 1)"
else
  note "nvcc not found (PATH, /usr/local/cuda/bin)"
fi

# ------------------------------------------------------------ build tools

missing_tools() {
  local m=()
  command -v meson >/dev/null 2>&1 || m+=(meson)
  command -v ninja >/dev/null 2>&1 || m+=(ninja-build)
  command -v pkg-config >/dev/null 2>&1 || m+=(pkg-config)
  command -v cc >/dev/null 2>&1 || m+=(gcc)
  command -v g++ >/dev/null 2>&1 || m+=(g++) # nvcc's host compiler
  if command -v pkg-config >/dev/null 2>&1; then
    pkg-config --exists 'glib-2.0 >= 2.74' gio-2.0 || m+=(libglib2.0-dev)
    pkg-config --exists 'json-glib-1.0 >= 1.6' || m+=(libjson-glib-dev)
    pkg-config --exists libturbojpeg || m+=(libturbojpeg0-dev)
    pkg-config --exists libjpeg || m+=(libjpeg-dev)
  fi
  command -v python3 >/dev/null 2>&1 || m+=(python3)
  echo "${m[*]}"
}

missing=$(missing_tools)
if [ -n "$missing" ] && command -v apt-get >/dev/null 2>&1; then
  note "missing: $missing; trying apt-get"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo -n)
  export DEBIAN_FRONTEND=noninteractive
  timeout 60 "${sudo_cmd[@]}" apt-get update -q >"$WORK/apt.log" 2>&1 || note "apt-get update failed (no network?)"
  # One by one: package names differ between Debian and Ubuntu.
  for p in meson ninja-build pkg-config gcc g++ libglib2.0-dev libjson-glib-dev libturbojpeg0-dev \
    libjpeg62-turbo-dev libjpeg-turbo8-dev libjpeg-dev libsqlite3-dev python3; do
    [ "$(elapsed)" -lt 110 ] || break
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && continue
    timeout 60 "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "$p" >>"$WORK/apt.log" 2>&1 ||
      echo "apt-get install $p failed" >>"$WORK/apt.log"
  done
  [ -n "${LS_CHECK_NO_PYTHON:-}" ] || PY=$(command -v python3 || true)
  missing=$(missing_tools)
fi
[ -n "$missing" ] && note "still missing after any install: $missing"
for t in meson ninja cc g++ pkg-config nvcc; do
  command -v "$t" >/dev/null 2>&1 || give_up "cannot build: '$t' is not installed (missing: $missing)"
done
meson_version=$(meson --version 2>/dev/null)
note "meson $meson_version, ninja $(ninja --version 2>/dev/null)"
case "$meson_version" in
  0.*) give_up "cannot build: meson $meson_version is older than 1.0.0 (the project needs >= 1.0)" ;;
esac

# ------------------------------------------------------------ build

setup_opts=(-Dgui=disabled -Dhdf5=disabled -Dcuda=enabled -Dbuildtype=debugoptimized)
jpeg=yes
pkg-config --exists libturbojpeg libjpeg || {
  jpeg=no
  setup_opts+=(-Djpeg=disabled)
  note "no libjpeg-turbo: building without JPEG, measuring on a synthetic dataset"
}
setup() {
  if [ -f "$BUILD/meson-private/coredata.dat" ]; then
    meson setup --reconfigure "$BUILD" "${setup_opts[@]}" >"$WORK/setup.log" 2>&1 && return 0
    rm -rf "$BUILD"
  fi
  meson setup "$BUILD" "${setup_opts[@]}" >"$WORK/setup.log" 2>&1
}
if ! setup; then
  tail -n 30 "$WORK/setup.log" >&2
  give_up "meson setup failed: $(grep -E 'ERROR|error' "$WORK/setup.log" | head -n 3 | tr '\n' ' ')"
fi
compile() {
  timeout 150 meson compile -C "$BUILD" app/loadscope loader/loadscope-worker >"$WORK/build.log" 2>&1
}
if ! compile; then
  if grep -q "unsupported GNU version\|unsupported clang version" "$WORK/build.log"; then
    note "nvcc does not support this host compiler's version; retrying with -allow-unsupported-compiler"
    export NVCC_APPEND_FLAGS="${NVCC_APPEND_FLAGS:-} -allow-unsupported-compiler"
    compile || {
      tail -n 40 "$WORK/build.log" >&2
      give_up "build failed: $(grep -iE 'error' "$WORK/build.log" | head -n 3 | tr '\n' ' ')"
    }
  else
    tail -n 40 "$WORK/build.log" >&2
    give_up "build failed: $(grep -iE 'error' "$WORK/build.log" | head -n 3 | tr '\n' ' ')"
  fi
fi
# The sink's own test program, whose GPU half only runs here (optional).
unit=yes
timeout 60 meson compile -C "$BUILD" tests/test-sink-cuda >"$WORK/build-test.log" 2>&1 || {
  unit=no
  note "tests/test-sink-cuda did not build: $(grep -iE 'error' "$WORK/build-test.log" | head -n 2 | tr '\n' ' ')"
}
LOADSCOPE=$ROOT/$BUILD/app/loadscope
export LOADSCOPE_WORKER=$ROOT/$BUILD/loader/loadscope-worker
[ -x "$LOADSCOPE" ] || give_up "the build did not produce $LOADSCOPE"
note "built in $(elapsed) s"

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

MANIFEST=$WORK/manifest
: >"$MANIFEST"
i=0
for nb in off on; do
  for pin in off staging arena; do
    i=$((i + 1))
    json=$WORK/run-$i.json
    errf=$WORK/run-$i.err
    if [ "$(date +%s)" -ge "$DEADLINE" ]; then
      note "skipped pin=$pin non_blocking=$nb: out of time"
      printf '%s\t%s\t%s\t%s\t%s\n' "$pin" "$nb" "skipped" "$json" "$errf" >>"$MANIFEST"
      continue
    fi
    timeout 90 "$LOADSCOPE" run "${dataset[@]}" --workers 2 --sink cuda --pin "$pin" --non-blocking "$nb" \
      --model-ms 10 --batches 40 --json >"$json" 2>"$errf"
    rc=$?
    printf '%s\t%s\t%s\t%s\t%s\n' "$pin" "$nb" "$rc" "$json" "$errf" >>"$MANIFEST"
    echo "device-check: pin=$pin non_blocking=$nb exit $rc ($(elapsed) s)" >&2
  done
done

# The sink's test program: slot protocol, every pin mode, a run on the
# pinned arena with forked workers.
UNIT_LOG=$WORK/unit.log
UNIT_RC=skipped
if [ "$unit" = yes ] && [ "$(date +%s)" -lt "$DEADLINE" ]; then
  timeout 90 "$ROOT/$BUILD/tests/test-sink-cuda" --tap >"$UNIT_LOG" 2>&1
  UNIT_RC=$?
  echo "device-check: test-sink-cuda exit $UNIT_RC ($(elapsed) s)" >&2
else
  echo "not run" >"$UNIT_LOG"
fi

# ------------------------------------------------------------ checks

if [ -n "$PY" ]; then
  "$PY" - "$MANIFEST" "$REPORT" "$NOTES" "$dataset_kind" "$START" "$UNIT_RC" "$UNIT_LOG" <<'PY'
import json, sys, time

manifest, report_path, notes_path, dataset_kind, start, unit_rc, unit_log = sys.argv[1:8]
MODEL_MS = 10.0

runs = []
for line in open(manifest):
    pin, nb, rc, json_path, err_path = line.rstrip("\n").split("\t")
    run = {"pin": pin, "non_blocking": nb == "on", "exit_code": None if rc == "skipped" else int(rc),
           "skipped": rc == "skipped", "summary": None, "stderr_tail": ""}
    try:
        run["stderr_tail"] = open(err_path, errors="replace").read()[-2000:]
    except OSError:
        pass
    try:
        run["summary"] = json.load(open(json_path))
    except (OSError, ValueError) as e:
        run["parse_error"] = str(e)
    runs.append(run)

assertions = []
def check(name, ok, detail):
    assertions.append({"name": name, "ok": bool(ok), "detail": detail})

def get(s, *path):
    for p in path:
        if not isinstance(s, dict) or s.get(p) is None:
            return None
        s = s[p]
    return s

def bandwidth_gbps(s):
    b, ms = get(s, "batch_bytes"), get(s, "copy_ms", "p50")
    if not isinstance(b, (int, float)) or not isinstance(ms, (int, float)) or ms <= 0:
        return None
    return b / (ms * 1e6)

by = {}
for r in runs:
    nbw = "on" if r["non_blocking"] else "off"
    tag = "pin=%s non_blocking=%s" % (r["pin"], nbw)
    by[(r["pin"], nbw)] = r
    s = r["summary"]
    if r["skipped"]:
        check(tag + ": ran", False, "skipped: out of time")
        continue
    check(tag + ": finished", r["exit_code"] == 0 and get(s, "status") == "done",
          "exit %s, status %s, error %s" % (r["exit_code"], get(s, "status"),
                                            get(s, "error") or r["stderr_tail"].strip()[-300:] or None))
    check(tag + ": real GPU", get(s, "sink") == "cuda" and get(s, "simulated") is False,
          "sink %r, simulated %r, device %r, note %r" % (get(s, "sink"), get(s, "simulated"), get(s, "device"),
                                                       get(s, "sink_note")))
    u = get(s, "gpu_util_exact")
    check(tag + ": gpu_util_exact in (0, 1]", isinstance(u, (int, float)) and 0 < u <= 1, "gpu_util_exact %r" % u)
    n = get(s, "gpu_util_nvml")
    check(tag + ": gpu_util_nvml present", n is not None, "gpu_util_nvml %r" % n)
    c = get(s, "compute_ms", "p50")
    check(tag + ": model step %g ms +-5%%" % MODEL_MS,
          isinstance(c, (int, float)) and abs(c - MODEL_MS) <= 0.05 * MODEL_MS, "compute_ms p50 %r" % c)

for nbw in ("off", "on"):
    off, staging, arena = by.get(("off", nbw)), by.get(("staging", nbw)), by.get(("arena", nbw))
    s_off, s_st, s_ar = (get(x, "summary") if x else None for x in (off, staging, arena))
    bw_off = bandwidth_gbps(s_off)
    for name, s in (("staging", s_st), ("arena", s_ar)):
        bw = bandwidth_gbps(s)
        check("non_blocking=%s: %s copy bandwidth > pageable" % (nbw, name),
              bw is not None and bw_off is not None and bw > bw_off,
              "%s %s GB/s, pageable %s GB/s" % (name, None if bw is None else round(bw, 2),
                                               None if bw_off is None else round(bw_off, 2)))
    h_st, h_ar = get(s_st, "host_bytes_copied"), get(s_ar, "host_bytes_copied")
    check("non_blocking=%s: arena host bytes copied < staging's" % nbw,
          isinstance(h_st, int) and isinstance(h_ar, int) and h_ar < h_st,
          "arena %r, staging %r" % (h_ar, h_st))

unit_out = open(unit_log, errors="replace").read()
gpu_tests = [l for l in unit_out.splitlines() if l.startswith(("ok ", "not ok ")) and "-on-gpu" in l]
check("test-sink-cuda: passes, GPU tests run",
      unit_rc == "0" and len(gpu_tests) == 2 and not any("SKIP" in l or l.startswith("not ok") for l in gpu_tests),
      "exit %s; %s" % (unit_rc, "; ".join(gpu_tests) or unit_out.strip()[-500:]))

ok = bool(assertions) and all(a["ok"] for a in assertions)
report = {
    "ok": ok,
    "elapsed_s": round(time.time() - float(start), 1),
    "dataset": dataset_kind,
    "notes": open(notes_path).read().splitlines(),
    "runs": runs,
    "assertions": assertions,
    "test_sink_cuda": {"exit_code": unit_rc, "output_tail": unit_out[-6000:]},
}
json.dump(report, open(report_path, "w"), indent=2)

def fmt(v, f="%.3f"):
    return "-" if not isinstance(v, (int, float)) or isinstance(v, bool) else f % v

print("%-8s %-5s %-6s %-8s %9s %8s %10s %8s %8s %12s" % (
    "pin", "nb", "status", "sink", "copy p50", "GB/s", "step p50", "util", "nvml", "host bytes"))
for r in runs:
    s = r["summary"]
    print("%-8s %-5s %-6s %-8s %9s %8s %10s %8s %8s %12s" % (
        r["pin"], "on" if r["non_blocking"] else "off",
        "skip" if r["skipped"] else (get(s, "status") or "?")[:6], (get(s, "sink") or "?")[:8],
        fmt(get(s, "copy_ms", "p50")), fmt(bandwidth_gbps(s), "%.1f"), fmt(get(s, "compute_ms", "p50")),
        fmt(get(s, "gpu_util_exact")), fmt(get(s, "gpu_util_nvml")), fmt(get(s, "host_bytes_copied"), "%d")))
print()
for a in assertions:
    print("%s  %s: %s" % ("PASS" if a["ok"] else "FAIL", a["name"], a["detail"]))
failed = sum(not a["ok"] for a in assertions)
print("\ndevice-check: %d of %d assertions held%s" % (len(assertions) - failed, len(assertions),
                                                      "" if ok else " -- FAILED"))
sys.exit(0 if ok else 1)
PY
  rc=$?
else
  # No python3: the same checks on the summaries flattened to one line.
  note "python3 not found: checking with shell tools"
  flat() { tr -d ' \n\t\r' <"$1" 2>/dev/null; }
  str_field() { sed -n "s/.*\"$2\":\"\([^\"]*\)\".*/\1/p" <<<"$1"; }
  num_field() { sed -n "s/.*\"$2\":\([-0-9.eE+a-z]*\)[,}].*/\1/p" <<<"$1"; }
  sub_field() { sed -n "s/.*\"$2\":{\"$3\":\([-0-9.eE+]*\)[,}].*/\1/p" <<<"$1"; }
  awk_true() { awk "BEGIN { exit !($1) }" 2>/dev/null; }
  asserts=()
  n_fail=0
  add() { # name ok detail
    asserts+=("{\"name\": $(printf '%s' "$1" | json_str), \"ok\": $2, \"detail\": $(printf '%s' "$3" | json_str)}")
    [ "$2" = true ] || n_fail=$((n_fail + 1))
    printf '%s  %s: %s\n' "$([ "$2" = true ] && echo PASS || echo FAIL)" "$1" "$3"
  }
  runs_json=()
  declare -A BW HB
  while IFS=$'\t' read -r pin nb rc json errf; do
    tag="pin=$pin non_blocking=$nb"
    if [ "$rc" = skipped ]; then
      add "$tag: ran" false "skipped: out of time"
      runs_json+=("{\"pin\": \"$pin\", \"non_blocking\": $([ "$nb" = on ] && echo true || echo false), \"skipped\": true, \"summary\": null}")
      continue
    fi
    f=$(flat "$json")
    summary=$(cat "$json" 2>/dev/null)
    [ -n "$summary" ] || summary=null
    runs_json+=("{\"pin\": \"$pin\", \"non_blocking\": $([ "$nb" = on ] && echo true || echo false), \"exit_code\": $rc, \"summary\": $summary, \"stderr_tail\": $(tail -c 2000 "$errf" | json_str)}")
    status=$(str_field "$f" status)
    sink=$(str_field "$f" sink)
    simulated=$(num_field "$f" simulated)
    util=$(num_field "$f" gpu_util_exact)
    nvml=$(num_field "$f" gpu_util_nvml)
    step=$(sub_field "$f" compute_ms p50)
    copy=$(sub_field "$f" copy_ms p50)
    bytes=$(num_field "$f" batch_bytes)
    host=$(num_field "$f" host_bytes_copied)
    ok=false; [ "$rc" = 0 ] && [ "$status" = "done" ] && ok=true
    add "$tag: finished" $ok "exit $rc, status $status, $(tail -c 300 "$errf" | tr '\n' ' ')"
    ok=false; [ "$sink" = cuda ] && [ "$simulated" = false ] && ok=true
    add "$tag: real GPU" $ok "sink $sink, simulated $simulated"
    ok=false; [ -n "$util" ] && [ "$util" != null ] && awk_true "$util > 0 && $util <= 1" && ok=true
    add "$tag: gpu_util_exact in (0, 1]" $ok "gpu_util_exact $util"
    ok=false; [ -n "$nvml" ] && [ "$nvml" != null ] && ok=true
    add "$tag: gpu_util_nvml present" $ok "gpu_util_nvml $nvml"
    ok=false; [ -n "$step" ] && awk_true "$step >= 9.5 && $step <= 10.5" && ok=true
    add "$tag: model step 10 ms +-5%" $ok "compute_ms p50 $step"
    BW[$pin/$nb]=""
    [ -n "$copy" ] && [ -n "$bytes" ] && awk_true "$copy > 0" && BW[$pin/$nb]=$(awk "BEGIN { print $bytes / ($copy * 1e6) }")
    HB[$pin/$nb]=$host
    printf '%-8s %-4s status=%s sink=%s copy_p50=%s GB/s=%s step_p50=%s util=%s nvml=%s host_bytes=%s\n' \
      "$pin" "$nb" "$status" "$sink" "$copy" "${BW[$pin/$nb]}" "$step" "$util" "$nvml" "$host"
  done <"$MANIFEST"
  ok=false
  [ "$UNIT_RC" = 0 ] && ! grep -q "on-gpu # SKIP" "$UNIT_LOG" && ok=true
  add "test-sink-cuda: passes, GPU tests run" $ok "exit $UNIT_RC; $(grep -E '^(not )?ok .*on-gpu' "$UNIT_LOG" | tr '\n' ' ')"
  for nb in off on; do
    for p in staging arena; do
      ok=false
      [ -n "${BW[$p/$nb]:-}" ] && [ -n "${BW[off/$nb]:-}" ] && awk_true "${BW[$p/$nb]} > ${BW[off/$nb]}" && ok=true
      add "non_blocking=$nb: $p copy bandwidth > pageable" $ok "$p ${BW[$p/$nb]:-?} GB/s, pageable ${BW[off/$nb]:-?} GB/s"
    done
    ok=false
    [ -n "${HB[arena/$nb]:-}" ] && [ -n "${HB[staging/$nb]:-}" ] && awk_true "${HB[arena/$nb]} < ${HB[staging/$nb]}" && ok=true
    add "non_blocking=$nb: arena host bytes copied < staging's" $ok "arena ${HB[arena/$nb]:-?}, staging ${HB[staging/$nb]:-?}"
  done
  {
    printf '{\n"ok": %s,\n"elapsed_s": %s,\n"dataset": "%s",\n"notes": %s,\n' \
      "$([ $n_fail -eq 0 ] && echo true || echo false)" "$(elapsed)" "$dataset_kind" "$(json_str <"$NOTES")"
    printf '"runs": [\n%s\n],\n' "$(IFS=,; echo "${runs_json[*]}")"
    printf '"assertions": [\n%s\n]\n}\n' "$(IFS=,; echo "${asserts[*]}")"
  } >"$REPORT"
  echo "device-check: $((${#asserts[@]} - n_fail)) of ${#asserts[@]} assertions held"
  rc=0
  [ $n_fail -eq 0 ] || rc=1
fi
echo "device-check: report in $REPORT ($(elapsed) s)"
exit $rc
