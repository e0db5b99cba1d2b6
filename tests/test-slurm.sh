#!/usr/bin/env bash
# `loadscope sweep --slurm` against a real single-node Slurm cluster
# (scripts/slurm-local.sh: munged, slurmctld, slurmd on 127.0.0.1, in a
# temporary folder, stopped at the end whatever happens). TAP output.
# Skipped, saying why, only when the Slurm packages are missing.
#
#   bash tests/test-slurm.sh BUILD/app/loadscope SOURCE/scripts/slurm-local.sh
set -uo pipefail

loadscope=$(readlink -f "$1")
cluster=$(readlink -f "$2")
export PATH=$PATH:/usr/sbin:/sbin

for t in munged slurmctld slurmd sbatch squeue scontrol scancel; do
  if ! command -v "$t" >/dev/null 2>&1; then
    echo "1..0 # SKIP Slurm packages missing ($t not found): apt-get install slurmctld slurmd slurm-client munge (scripts/setup.sh)"
    exit 0
  fi
done

T=$(mktemp -d "${TMPDIR:-/tmp}/ls-slurm-test-XXXXXX")
export LOADSCOPE_SLURM_DIR=$T/cluster
export LOADSCOPE_SLURM_PORT=$((20000 + RANDOM % 20000))
export LS_TEST_SLURM_POLL_MS=300
export XDG_DATA_HOME=$T/xdg
finish () {
  bash "$cluster" stop >/dev/null 2>&1 || true
  rm -rf "$T"
}
trap finish EXIT
trap 'exit 130' INT TERM

n=0 failed=0
ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () {
  n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
  shift
  for f in "$@"; do [ -f "$f" ] && sed 's/^/# /' "$f"; done
}
check () { # name, command... (files to show on failure after --)
  local name=$1; shift
  if eval "$1"; then ok "$name"; else shift; not_ok "$name" "$@"; fi
}

echo "1..16"

if ! eval "$(bash "$cluster" start 2>"$T/start.err")"; then
  echo "Bail out! the local cluster did not start: $(tr '\n' ' ' < "$T/start.err")"
  exit 1
fi
[ -n "${SLURM_CONF:-}" ] || { echo "Bail out! no SLURM_CONF from slurm-local.sh"; exit 1; }
node=$(sinfo -h -o %n | head -n 1)

knobs=(--dataset synthetic --count 200 --size 32x32 --batches 5 --sink sim --model-ms 1)
runs_in () { "$loadscope" history --db "$1" --json | grep -o '"uuid"' | wc -l; }
job_of () { sed -n 's/.*"id" *: *"\([0-9]*\)".*/\1/p' "$1/slurm.json" | head -n 1; }

# 1-2: --dry-run prints the script and submits nothing.
mkdir -p "$T/cwd" && cd "$T/cwd"
"$loadscope" sweep "${knobs[@]}" --workers 0,1 --pin off,staging,arena --slurm --dry-run --max-parallel 2 \
  >"$T/dry.out" 2>"$T/dry.err"
check "--dry-run prints a 6-task array script with quoted arguments and the executable by absolute path" \
  "grep -q '^#SBATCH --array=0-5%2$' '$T/dry.out' && grep -q \"^loadscope='$loadscope'$\" '$T/dry.out' \
   && grep -q \"args=('--workers' '1' '--pin' 'arena'\" '$T/dry.out'" "$T/dry.out" "$T/dry.err"
check "--dry-run submits nothing and writes nothing" \
  "[ -z \"\$(squeue -h)\" ] && [ -z \"\$(ls -A '$T/cwd')\" ]" "$T/dry.err"

# 3-6: a 6-configuration array runs and merges into 6 runs with the node's name.
"$loadscope" sweep "${knobs[@]}" --workers 0,1 --pin off,staging,arena --slurm --max-parallel 2 \
  --run-dir "$T/r1" --db "$T/h.sqlite" >"$T/r1.out" 2>"$T/r1.err"
rc=$?
check "a 6-task array ends with exit status 0" "[ $rc -eq 0 ]" "$T/r1.out" "$T/r1.err"
check "the progress line counts the tasks done" "grep -q '6 tasks: 0 pending, 0 running, 6 done, 0 failed' '$T/r1.err'" "$T/r1.err"
check "6 runs merged, in one sweep, all recorded on node $node" \
  "[ \"\$(runs_in '$T/h.sqlite')\" -eq 6 ] && grep -q 'collected .*: 6 new runs (0 already present) from 6 task stores' '$T/r1.out' \
   && grep -q \"runs by node: $node 6\$\" '$T/r1.out' \
   && [ \"\$('$loadscope' history --db '$T/h.sqlite' --json | grep -c '\"machine\" : \"$node\"')\" -eq 6 ]" "$T/r1.out"
check "each task left its own store and log in the run folder" \
  "[ \$(ls '$T/r1/tasks/'task-*.sqlite | wc -l) -eq 6 ] && [ \$(ls '$T/r1/logs/'task-*.log | wc -l) -eq 6 ]"

# 7: the per-machine series option of sweep charts.
"$loadscope" export --db "$T/h.sqlite" --sweep 1 --format svg --chart wait --per-machine -o "$T/pm.svg" >"$T/pm.out" 2>&1
check "export --chart --per-machine names the node in every series" \
  "grep -q 'pin staging, on $node' '$T/pm.svg'" "$T/pm.out"

# 8: collect twice adds nothing.
"$loadscope" sweep --slurm-collect "$T/r1" --db "$T/h.sqlite" >"$T/c2.out" 2>&1
check "collecting again adds nothing" \
  "grep -q ': 0 new runs (6 already present)' '$T/c2.out' && [ \"\$(runs_in '$T/h.sqlite')\" -eq 6 ]" "$T/c2.out"

# 9-10: a task that fails (its dataset is gone when it runs) is reported
# with its state and the tail of its log. The state is Slurm's FAILED while
# Slurm still lists the job, else what its exit file says: which one a
# collect right after the job meets depends on Slurm's timing.
"$loadscope" make-dataset --format jpeg-dir --count 8 "$T/gone" >/dev/null 2>&1
"$loadscope" sweep --dataset "$T/gone" --workers 0,1 --batches 2 --sink sim --model-ms 1 --slurm --no-wait \
  --sbatch-arg=--hold --run-dir "$T/r2" --db "$T/h2.sqlite" >"$T/r2.out" 2>"$T/r2.err"
rm -rf "$T/gone"
scontrol release "$(job_of "$T/r2")" >/dev/null 2>&1
"$loadscope" sweep --slurm-collect "$T/r2" --db "$T/h2.sqlite" >"$T/c3.out" 2>"$T/c3.err"
rc=$?
check "a failed task makes collect exit 1" "[ $rc -eq 1 ]" "$T/r2.err" "$T/c3.out" "$T/c3.err"
check "the failed task is named with its Slurm state, exit status, node and log tail" \
  "grep -Eq '^task 0 \\(workers=0\\): failed \\[Slurm: (FAILED|exited with status 2)\\], exit status 2, on $node' '$T/c3.out' \
   && grep -q 'logs/task-0.log, last lines:' '$T/c3.out' && grep -q '| loadscope run: --dataset .*no such file or folder' '$T/c3.out'" \
  "$T/c3.out"

# 11-14: scancel mid-array: finished runs merged, the rest marked.
"$loadscope" sweep --dataset synthetic --count 200 --size 32x32 --batches 30 --sink sim --model-ms 40 \
  --workers 0,1 --pin off,staging,arena --slurm --max-parallel 1 --run-dir "$T/r3" --db "$T/h3.sqlite" \
  >"$T/r3.out" 2>"$T/r3.err" &
sweep=$!
for _ in $(seq 300); do [ -f "$T/r3/tasks/task-0.exit" ] && break; sleep 0.1; done
sleep 0.5
scancel "$(job_of "$T/r3")"
wait $sweep
rc=$?
check "a cancelled array ends with exit status 1" "[ $rc -eq 1 ]" "$T/r3.out" "$T/r3.err"
runs3=$(runs_in "$T/h3.sqlite")
check "the runs that finished before scancel are merged (got $runs3)" "[ $runs3 -ge 1 ] && [ $runs3 -lt 6 ]" "$T/r3.out"
check "the tasks that did not run are marked cancelled" \
  "grep -q '^task 5 (workers=1 pin=arena): cancelled \\[Slurm: CANCELLED' '$T/r3.out'" "$T/r3.out"
check "the sweep is recorded as interrupted" \
  "grep -q '^sweep [0-9]*: interrupted' '$T/r3.out'" "$T/r3.out"

# 15: Ctrl-C without a terminal: says how to scancel and leaves the array running.
"$loadscope" sweep "${knobs[@]}" --workers 0 --slurm --sbatch-arg=--hold --run-dir "$T/r5" --db "$T/h5.sqlite" \
  </dev/null >"$T/r5.out" 2>"$T/r5.err" &
sweep=$!
for _ in $(seq 100); do grep -q '^submitted job' "$T/r5.err" 2>/dev/null && break; sleep 0.1; done
sleep 0.3
kill -INT $sweep
wait $sweep
rc=$?
job5=$(job_of "$T/r5")
check "Ctrl-C (no terminal) says how to scancel, exits 1 and leaves the array queued" \
  "[ $rc -eq 1 ] && grep -q \"scancel $job5\" '$T/r5.err' && [ -n \"\$(squeue -h -j $job5)\" ]" "$T/r5.err"
scancel "$job5" >/dev/null 2>&1

# 16: a run folder made without Slurm (the same script in a plain loop) merges the same way.
"$loadscope" sweep "${knobs[@]}" --workers 0,1 --slurm --dry-run --run-dir "$T/r4" >/dev/null 2>"$T/r4.err"
for t in 0 1; do SLURM_ARRAY_TASK_ID=$t bash "$T/r4/sweep.sbatch" >"$T/r4/logs/task-$t.log" 2>&1; done
"$loadscope" sweep --slurm-collect "$T/r4" --db "$T/h4.sqlite" >"$T/c4.out" 2>&1
check "a folder run by a plain loop merges too" \
  "grep -q ': 2 new runs (0 already present) from 2 task stores' '$T/c4.out'" "$T/r4.err" "$T/c4.out"

[ $failed -eq 0 ]
