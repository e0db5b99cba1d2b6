#!/usr/bin/env bash
# The store under faults, as a user would meet them, TAP output:
#   1. SIGKILL to a sweep and its runner at random moments (8 kills, seeded:
#      LOADSCOPE_FAULT_SEED=N repeats a series, LOADSCOPE_FAULT_KILLS=N
#      sets the count); after each: the next writing open leaves no run or
#      sweep `running`, PRAGMA integrity_check is ok, and every run that had
#      completed before is byte-identical (a dump of its rows and children).
#   2. A full disk mid-sweep: a 1 MiB tmpfs (root: mount) and a file-size
#      limit (anyone: ulimit -f, SIGXFSZ ignored, so writes fail with EFBIG);
#      the sweep ends with a clear error, the store stays consistent.
#   3. A read-only store folder: a read-only bind mount where mounting works
#      (root ignores permissions, so chmod would prove nothing), else
#      chmod a-w (not root); writers fail saying so, readers read.
#   4. Two sweeps into one store at once: both complete, every run recorded.
# A table of what was tried ends the output, for the notes.
#
#   bash tests/test-faults.sh BUILD/app/loadscope
set -uo pipefail

loadscope=$(readlink -f "$1")
if ! command -v sqlite3 >/dev/null 2>&1; then
  echo "1..0 # SKIP the sqlite3 command is missing (apt-get install sqlite3; scripts/setup.sh)"
  exit 0
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/ls-faults-XXXXXX")
mounts=()
children=()
finish () {
  for pid in "${children[@]}"; do kill -9 "$pid" 2>/dev/null; done
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
  rm -rf "$T"
}
trap finish EXIT
export XDG_DATA_HOME=$T/xdg
export LOADSCOPE_STORE_BUSY_MS=10000 # a loaded machine: writers wait for each other

seed=${LOADSCOPE_FAULT_SEED:-$(( $(date +%s) % 32768 ))}
kills=${LOADSCOPE_FAULT_KILLS:-8}
RANDOM=$seed
n=0
failed=0
table=()
ok () { n=$((n + 1)); echo "ok $n - $*"; }
not_ok () { n=$((n + 1)); failed=1; echo "not ok $n - $*"; }
skip () { n=$((n + 1)); echo "ok $n - $* # SKIP"; }
q () { sqlite3 -bail -cmd ".timeout 10000" "$@"; }
echo "# seed $seed (LOADSCOPE_FAULT_SEED=$seed repeats this series), $kills kills"

# A small quick run (a completed run to keep intact).
small_run () {
  "$loadscope" run --dataset synthetic --count 32 --size 16x16 --batches 3 --sink sim --model-ms 1 --db "$1" >/dev/null
}

# Every row of the given finished runs: their own, batches, samples, workers.
dump_runs () {
  local db=$1 ids=$2
  [ -n "$ids" ] || return 0
  q -readonly "$db" ".mode quote" \
    "SELECT * FROM run WHERE id IN ($ids) ORDER BY id" \
    "SELECT * FROM batch WHERE run_id IN ($ids) ORDER BY run_id, seq" \
    "SELECT * FROM sample WHERE run_id IN ($ids) ORDER BY run_id, rowid" \
    "SELECT * FROM worker WHERE run_id IN ($ids) ORDER BY run_id, rowid" | sha256sum | cut -c1-64
}
finished_ids () {
  q -readonly "$1" "SELECT group_concat(id) FROM (SELECT id FROM run WHERE status != 'running' ORDER BY id)"
}
# Integrity, nothing running, after a writing open; prints what is wrong.
check_store () {
  local db=$1 why=""
  "$loadscope" history --db "$db" >/dev/null 2>"$T/history.err" || why="history failed: $(head -c 300 "$T/history.err")"
  local integrity running
  integrity=$(q -readonly "$db" "PRAGMA integrity_check")
  running=$(q -readonly "$db" "SELECT (SELECT count(*) FROM run WHERE status = 'running') || ' runs, ' || (SELECT count(*) FROM sweep WHERE status = 'running') || ' sweeps'")
  [ "$integrity" = ok ] || why="$why integrity_check: $integrity"
  [ "$running" = "0 runs, 0 sweeps" ] || why="$why left running: $running"
  echo "$why"
}
# The processes whose command line names path (a killed sweep's runners:
# `loadscope run ... --db PATH`, also one still starting, not yet in the store).
procs_naming () {
  local d cmd
  for d in /proc/[0-9]*; do
    cmd=$( { tr '\0' ' ' <"$d/cmdline"; } 2>/dev/null) || continue
    case $cmd in *"$1"*) echo "${d#/proc/}" ;; esac
  done
}
# Ends runners a killed sweep left: pids of the store's running runs, and
# any runner of this store still starting (a loaded machine: it records
# its run after the sweep was killed), until none is left.
end_orphans () {
  local db=$1
  for i in $(seq 1 50); do
    local pids
    pids=$(q -readonly "$db" "SELECT runner_pid FROM run WHERE status = 'running' AND runner_pid IS NOT NULL" 2>/dev/null)
    local alive=""
    for p in $pids $(procs_naming "$db"); do
      if kill -0 "$p" 2>/dev/null; then alive="$alive $p"; kill -9 "$p" 2>/dev/null; fi
    done
    [ -z "$alive" ] && return 0
    sleep 0.1
  done
}

# ---------------------------------------------------------------- kills
db=$T/kills.sqlite
small_run "$db" && small_run "$db"
kill_counts=(0 0 0) # sweep only (its runner then ended), runner only, both
kill_names=("the sweep" "the runner" "both")
kill_fail=0
for k in $(seq 1 "$kills"); do
  ids=$(finished_ids "$db")
  before=$(dump_runs "$db" "$ids")
  "$loadscope" sweep --dataset synthetic --count 4000 --size 8x8 --sample-cost-us 100 --batch-size 16 \
    --workers 0,1 --batches 2000 --sink none --db "$db" >/dev/null 2>&1 &
  sweep=$!
  children+=("$sweep")
  delay_ms=$((100 + RANDOM % 1400))
  what=$((RANDOM % 3))
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  # A runner to kill: the one going now, or the next (between two runs
  # there is none for a moment), for at most 3 s.
  runner=""
  for i in $(seq 1 30); do
    runner=$(q -readonly "$db" "SELECT runner_pid FROM run WHERE status = 'running' ORDER BY id DESC LIMIT 1" 2>/dev/null)
    [ -n "$runner" ] || [ "$what" -eq 0 ] && break
    sleep 0.1
  done
  case $what in
    0) kill -9 "$sweep" 2>/dev/null ;;
    1) [ -n "$runner" ] && kill -9 "$runner" 2>/dev/null; sleep 0.$((RANDOM % 5)); kill -9 "$sweep" 2>/dev/null ;;
    2) kill -9 "$sweep" 2>/dev/null; [ -n "$runner" ] && kill -9 "$runner" 2>/dev/null ;;
  esac
  wait "$sweep" 2>/dev/null
  end_orphans "$db"
  kill_counts[$what]=$((kill_counts[what] + 1))
  why=$(check_store "$db")
  after=$(dump_runs "$db" "$ids")
  [ "$before" = "$after" ] || why="$why completed runs changed ($ids)"
  if [ -z "${why// /}" ]; then
    ok "kill $k: SIGKILL to ${kill_names[$what]} after ${delay_ms} ms (runner ${runner:-none yet}): store sound, nothing running, $(echo "$ids" | tr ',' '\n' | wc -l) completed runs unchanged"
  else
    not_ok "kill $k: SIGKILL to ${kill_names[$what]} after ${delay_ms} ms:$why"
    kill_fail=$((kill_fail + 1))
  fi
done
runs_total=$(q -readonly "$db" "SELECT count(*) || ' runs (' || sum(status = 'done') || ' done, ' || sum(status = 'interrupted') || ' interrupted), ' || (SELECT count(*) FROM sweep WHERE status = 'interrupted') || ' of ' || (SELECT count(*) FROM sweep) || ' sweeps interrupted' FROM run")
table+=("SIGKILL sweep/runner|$kills (sweep ${kill_counts[0]}, runner ${kill_counts[1]}, both ${kill_counts[2]}; seed $seed)|$((kills - kill_fail)) sound: $runs_total")

# ---------------------------------------------------------------- disk full
# A sweep whose store fills: ends with a clear error, the store sound after.
full_case () {
  local label=$1 db=$2 err=$3 status=$4
  local ids before after why
  if [ "$status" -eq 0 ]; then
    not_ok "$label: the sweep exited 0 on a full store"
    table+=("$label|1 sweep|exit 0 (wrong)")
    return
  fi
  if ! grep -q -E "disk is full|disk I/O error|not recorded|could not be recorded" "$err"; then
    not_ok "$label: no clear error: $(head -c 400 "$err")"
    table+=("$label|1 sweep|no clear error")
    return
  fi
  ok "$label: the sweep exited $status saying: $(grep -m1 -o -E '[^:]*: (database or disk is full|disk I/O error)' "$err" || grep -m1 'not recorded' "$err")"
  table+=("$label|1 sweep of 2 runs|exit $status, $(grep -c 'not recorded in the store' "$err") runs said 'not recorded'")
}

mnt=$T/full
mkdir -p "$mnt"
if mount -t tmpfs -o size=1m tmpfs "$mnt" 2>/dev/null; then
  mounts+=("$mnt")
  db=$mnt/s.sqlite
  small_run "$db"
  ids=$(finished_ids "$db")
  before=$(dump_runs "$db" "$ids")
  avail=$(df -k --output=avail "$mnt" | tail -1)
  dd if=/dev/zero of="$mnt/fill" bs=1k count=$((avail - 100)) 2>/dev/null
  "$loadscope" sweep --dataset synthetic --count 64 --size 8x8 --workers 0 --batch-size 32,64 --batches 3000 \
    --sink none --db "$db" >/dev/null 2>"$T/full.err"
  full_case "disk full (1 MiB tmpfs)" "$db" "$T/full.err" $?
  rm -f "$mnt/fill"
  why=$(check_store "$db")
  [ "$before" = "$(dump_runs "$db" "$ids")" ] || why="$why the completed run changed"
  if [ -z "${why// /}" ]; then ok "disk full (tmpfs): store sound after, nothing running, the completed run unchanged"
  else not_ok "disk full (tmpfs):$why"; fi
  umount "$mnt" && mounts=()
else
  skip "disk full (tmpfs): cannot mount a tmpfs here (not root); the file-size limit case below stands in"
  table+=("disk full (1 MiB tmpfs)|0|skipped: cannot mount here")
fi

db=$T/fsize.sqlite
small_run "$db"
ids=$(finished_ids "$db")
before=$(dump_runs "$db" "$ids")
size_kb=$(( $(stat -c %s "$db") / 1024 ))
# The limit binds every file the sweep and its runners write (the store,
# its -wal and -shm): the -shm (32 KiB) fits, a few hundred batches do not.
( ulimit -f $((size_kb + 48)); trap '' XFSZ
  exec "$loadscope" sweep --dataset synthetic --count 64 --size 8x8 --workers 0 --batch-size 32,64 --batches 3000 \
    --sink none --db "$db" >/dev/null 2>"$T/fsize.err" )
full_case "file-size limit (ulimit -f)" "$db" "$T/fsize.err" $?
why=$(check_store "$db")
[ "$before" = "$(dump_runs "$db" "$ids")" ] || why="$why the completed run changed"
if [ -z "${why// /}" ]; then ok "file-size limit: store sound after, nothing running, the completed run unchanged"
else not_ok "file-size limit:$why"; fi

# ---------------------------------------------------------------- read-only
ro=$T/ro
mkdir -p "$ro"
db=$ro/s.sqlite
small_run "$db"
how=""
if [ "$(id -u)" -eq 0 ]; then
  if mount --bind "$ro" "$ro" 2>/dev/null; then
    mounts+=("$ro")
    if mount -o remount,bind,ro "$ro" 2>/dev/null; then how="a read-only bind mount"; fi
  fi
elif chmod a-w "$ro" "$db"; then
  how="chmod a-w (folder and file)"
fi
if [ -z "$how" ]; then
  skip "read-only store: root, and no read-only bind mount here (root ignores chmod: it would prove nothing)"
  table+=("read-only store folder|0|skipped: no read-only mount")
else
  sum_before=$(sha256sum "$db" | cut -c1-64)
  "$loadscope" sweep --dataset synthetic --count 64 --size 8x8 --workers 0 --batches 3 --sink none --db "$db" \
    >/dev/null 2>"$T/ro.err"
  st=$?
  reads=0
  for cmd in "history" "show 1" "compare 1 1" "export --all --format json -o -"; do
    # shellcheck disable=SC2086
    "$loadscope" $cmd --db "$db" >/dev/null 2>>"$T/ro-read.err" && reads=$((reads + 1))
  done
  if [ $st -ne 0 ] && grep -q -i -E "read-only|readonly|cannot be written|cannot create" "$T/ro.err" && [ $reads -eq 4 ] \
    && [ "$sum_before" = "$(sha256sum "$db" | cut -c1-64)" ]; then
    ok "read-only store ($how): the sweep exits $st saying: $(head -1 "$T/ro.err"); history, show, compare, export read it; the file unchanged"
  else
    not_ok "read-only store ($how): sweep exit $st: $(head -c 300 "$T/ro.err"); $reads of 4 reads worked: $(head -c 300 "$T/ro-read.err")"
  fi
  table+=("read-only store folder ($how)|1 sweep, 4 reads|sweep exit $st, $reads of 4 reads")
  if [ "${#mounts[@]}" -gt 0 ]; then umount "$ro" && mounts=(); else chmod u+w "$ro" "$db"; fi
fi

# ---------------------------------------------------------------- two writers
db=$T/two.sqlite
small_run "$db"
for w in 1 2; do
  "$loadscope" sweep --dataset synthetic --count 256 --size 8x8 --sample-cost-us 50 --workers 0,1 --batch-size 8,16 \
    --batches 40 --sink none --db "$db" >/dev/null 2>"$T/two-$w.err" &
  eval "w$w=\$!"
  children+=("$!")
done
wait "$w1"; s1=$?
wait "$w2"; s2=$?
done_runs=$(q -readonly "$db" "SELECT count(*) FROM run WHERE status = 'done' AND sweep_id IS NOT NULL")
done_sweeps=$(q -readonly "$db" "SELECT count(*) FROM sweep WHERE status = 'done'")
batches=$(q -readonly "$db" "SELECT count(*) FROM batch JOIN run ON run.id = batch.run_id WHERE run.sweep_id IS NOT NULL")
why=$(check_store "$db")
if [ $s1 -eq 0 ] && [ $s2 -eq 0 ] && [ "$done_runs" -eq 8 ] && [ "$done_sweeps" -eq 2 ] && [ "$batches" -eq 320 ] \
  && [ -z "${why// /}" ]; then
  ok "two sweeps into one store at once: both exit 0, 2 sweeps and 8 runs done, 320 batches recorded"
else
  not_ok "two sweeps at once: exits $s1/$s2, $done_sweeps sweeps and $done_runs runs done, $batches batches;$why $(head -c 300 "$T/two-1.err") $(head -c 300 "$T/two-2.err")"
fi
table+=("two sweeps at once|2 sweeps x 4 runs|exits $s1/$s2, $done_runs runs done, $batches of 320 batches")

echo "1..$n"
echo "# what was tried                         | count | outcome"
for row in "${table[@]}"; do
  IFS='|' read -r a b c <<<"$row"
  printf '# %-38s | %s | %s\n' "$a" "$b" "$c"
done
exit $failed
