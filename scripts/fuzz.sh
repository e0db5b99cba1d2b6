#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz/ with clang under ASan + UBSan
# (build-fuzz) and runs each for N seconds from a temporary copy of its seed
# corpus; a crash fails it, with the file and the command that reproduces it.
#   scripts/fuzz.sh [--seconds N] [NAME...]    (default 45 s; every harness)
# NAME: jpeg json-import bundle-import events hdf5 slurm-run probe-line.
# Ends with "N passed, N failed". More: docs/fuzzing.md.
set -uo pipefail
cd "$(dirname "$0")/.."

LS_TAG=fuzz.sh
. scripts/lib.sh
bad_usage() { warn "$*"; exit 2; }

all=(jpeg json-import bundle-import events hdf5 slurm-run probe-line)
seconds=45
names=()
while [ $# -gt 0 ]; do
  case $1 in
    --seconds)
      [ $# -ge 2 ] || bad_usage "--seconds needs a number"
      seconds=$2
      shift
      ;;
    --seconds=*) seconds=${1#--seconds=} ;;
    -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) bad_usage "unknown option $1 (--seconds N, then harness names)" ;;
    *)
      [[ " ${all[*]} " == *" $1 "* ]] || bad_usage "no harness '$1'; the harnesses are: ${all[*]}"
      names+=("$1")
      ;;
  esac
  shift
done
case $seconds in
  ''|*[!0-9]*|0) bad_usage "--seconds '$seconds' is not a whole number of seconds above 0" ;;
esac
[ ${#names[@]} -gt 0 ] || names=("${all[@]}")
command -v clang >/dev/null ||
  bad_usage "clang not found; scripts/setup.sh --tests installs it (Debian's clang and libclang-rt-14-dev)"

dir=build-fuzz
# -fsanitize=fuzzer-no-link gives every library libFuzzer's coverage; only
# the harnesses link libFuzzer itself (tests/fuzz/meson.build). No window.
options=(-Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false -Dgui=disabled -Dcuda=disabled
         -Dc_args=-fsanitize=fuzzer-no-link)
echo "== fuzz: building ${names[*]} in $dir (clang, ASan + UBSan)"
if [ -f "$dir/build.ninja" ]; then
  meson configure "$dir" "${options[@]}"
else
  CC=clang meson setup "$dir" "${options[@]}"
fi >/dev/null || die "configuring $dir failed"
if ! meson compile -C "$dir" "${names[@]/#/tests/fuzz/fuzz-}" >"$dir/fuzz-build.log" 2>&1; then
  tail -n 30 "$dir/fuzz-build.log"
  echo "== fuzz: BUILD FAILED (the whole log: $dir/fuzz-build.log)"
  echo "0 passed, ${#names[@]} failed"
  exit 1
fi

# Without a symbolizer the sanitizer's interceptors look like our frames, and
# a child's crash cannot be sorted by library (below). llvm-14's is beside
# clang (package llvm-14); the unversioned llvm-symbolizer is package llvm.
clang_sym=$(dirname "$(readlink -f "$(command -v clang)")")/llvm-symbolizer
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && [ -x "$clang_sym" ]; then
  export ASAN_SYMBOLIZER_PATH=$clang_sym UBSAN_SYMBOLIZER_PATH=$clang_sym
fi
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && ! command -v llvm-symbolizer >/dev/null; then
  echo "== fuzz: no llvm-symbolizer (Debian: llvm-14, installed by scripts/setup.sh --tests): a child's crash" \
    "in libhdf5 cannot be told from one in our code, so each would count as a finding"
fi

# A sanitizer report ends the harness (libFuzzer keeps the input); GLib
# criticals are made fatal by the harnesses that read JSON.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# libhdf5 leaks on some damaged files: its leaks are the library's.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0}

work_root=$(mktemp -d "${TMPDIR:-/tmp}/loadscope-fuzz.XXXXXX")
passed=0
failed=0
files_in() { find "$1" -type f | wc -l; }

for n in "${names[@]}"; do
  work=$work_root/$n
  mkdir -p "$work/corpus" "$work/crashes" "$work/child-crashes"
  cp tests/fuzz/corpus/"$n"/* "$work/corpus/" 2>/dev/null
  # (not the inputs that hang a child: each would spend the deadline)
  find tests/fuzz/regress -maxdepth 1 -type f -name "$n-*" ! -name '*hang*' -exec cp -t "$work/corpus/" {} +
  seeds=$(files_in "$work/corpus")
  exe=$dir/tests/fuzz/fuzz-$n
  # libhdf5 sizes some buffers from the file (docs/fuzzing.md): there a failed
  # malloc is its error to report, as outside the sanitizer, not a finding.
  limits=(-rss_limit_mb=2048)
  asan=$ASAN_OPTIONS
  if [ "$n" = hdf5 ]; then
    limits+=(-malloc_limit_mb=8192)
    asan=$asan:allocator_may_return_null=1
  fi
  ASAN_OPTIONS=$asan LS_FUZZ_CHILD_CRASHES=$work/child-crashes \
    "$exe" -max_total_time="$seconds" -timeout=25 -report_slow_units=600 "${limits[@]}" -print_final_stats=1 \
    -artifact_prefix="$work/crashes/" "$work/corpus" >"$work/log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -n 1)
  corpus=$(files_in "$work/corpus")
  # a slow unit is the machine's load, not a finding (-timeout catches hangs)
  rm -f "$work"/crashes/slow-unit-*
  # A forked child inherits libFuzzer's handler, so its report writes a crash
  # file too. An input the harness survives crashed only a child: where the
  # first frame past libc and the interceptors is in a system library
  # (libhdf5), it is the library's, kept with the child crashes.
  lib_summaries=
  for c in "$work"/crashes/crash-*; do
    [ -f "$c" ] || continue
    report=$(ASAN_OPTIONS=$asan LS_FUZZ_CHILD_CRASHES= timeout 60 "$exe" -runs=1 "$c" 2>&1) || continue
    first=$(printf '%s\n' "$report" | grep -E '^ +#[0-9]+ ' \
      | grep -vE 'sysdeps/|/libc\.so|in __interceptor_|in ___interceptor_|in __sanitizer_|in fuzzer::' | head -n 1)
    if printf '%s\n' "$first" | grep -qE ' \(?/(usr/)?lib/'; then
      mv "$c" "$work/child-crashes/lib-$(basename "$c")"
      lib_summaries=$(printf '%s\n%s' "$lib_summaries" "$(printf '%s\n' "$report" | grep -E '^SUMMARY: ' | head -n 1)")
    fi
  done
  crashes=$(files_in "$work/crashes")
  child=$(files_in "$work/child-crashes")
  printf '%-20s %10s executions  %6s exec/s  corpus %d -> %d files (%d bytes)  %d crash files' \
    "fuzz-$n" "${execs:-?}" "${speed:-?}" "$seeds" "$corpus" "$(du -sb "$work/corpus" | cut -f1)" "$crashes"
  [ "$n" = hdf5 ] && printf '  %d inputs crashed or hung a child (libhdf5; ended as errors)' "$child"
  printf '\n'
  if [ "$child" -gt 0 ]; then
    echo "   kept in $work/child-crashes/ (open-crash: refused with an error naming the file; child-crash,"
    echo "   child-hang: a worker that the pool reports crashed or timed out; not failures here)"
  fi
  # a child's sanitizer report in our code is a finding too
  ours=$(grep -E '^SUMMARY: (Address|UndefinedBehavior)Sanitizer' "$work/log" | grep -vE ' \(?/(usr/)?lib/' \
    | grep -vxF -e "${lib_summaries:-no such line}" | head -n 3)
  if [ "$rc" -ne 0 ] || [ "$crashes" -gt 0 ] || [ -n "$ours" ]; then
    failed=$((failed + 1))
    echo "FAIL fuzz-$n (exit status $rc); its log: $work/log"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|fuzz: )' "$work/log" | head -n 5 | sed 's/^/   /'
    [ -z "$ours" ] || echo "$ours" | sed 's/^/   in a child: /'
    for c in "$work"/crashes/*; do
      [ -f "$c" ] || continue
      echo "   crash file: $c"
      echo "   reproduce:  $exe $c"
    done
  else
    passed=$((passed + 1))
    echo "PASS fuzz-$n"
    rm -rf "$work/corpus" "$work/crashes" "$work/log"
    rmdir "$work/child-crashes" "$work" 2>/dev/null
  fi
done

rmdir "$work_root" 2>/dev/null || echo "== fuzz: kept in $work_root: the failures above and the inputs that crashed or hung a child"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
