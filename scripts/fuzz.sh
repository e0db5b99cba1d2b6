#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz/ with clang under
# AddressSanitizer + UndefinedBehaviorSanitizer (build-fuzz) and runs each
# for N seconds from its seed corpus (tests/fuzz/corpus/NAME/ plus the
# inputs of tests/fuzz/regress/ that start with NAME-), copied to a
# temporary folder so the repository is never written (inputs that hang
# a child are left out: each would spend the harness's deadline).
#   scripts/fuzz.sh [--seconds N] [NAME...]    (default 45 s; every harness)
# NAME: jpeg json-import bundle-import events hdf5 slurm-run probe-line.
# Prints per harness its executions, executions per second, corpus growth
# and crash files; exits 1 when a harness crashed, with the file and the
# command that reproduces it. Ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

all=(jpeg json-import bundle-import events hdf5 slurm-run probe-line)
seconds=45
names=()
while [ $# -gt 0 ]; do
  case $1 in
    --seconds)
      [ $# -ge 2 ] || { echo "fuzz.sh: --seconds needs a number" >&2; exit 2; }
      seconds=$2
      shift 2
      ;;
    --seconds=*) seconds=${1#--seconds=}; shift ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1 (--seconds N, then harness names)" >&2; exit 2 ;;
    *)
      case " ${all[*]} " in
        *" $1 "*) names+=("$1") ;;
        *) echo "fuzz.sh: no harness '$1'; the harnesses are: ${all[*]}" >&2; exit 2 ;;
      esac
      shift
      ;;
  esac
done
case $seconds in
  ''|*[!0-9]*|0) echo "fuzz.sh: --seconds '$seconds' is not a whole number of seconds above 0" >&2; exit 2 ;;
esac
[ ${#names[@]} -gt 0 ] || names=("${all[@]}")

if ! command -v clang >/dev/null; then
  echo "fuzz.sh: clang not found; scripts/setup.sh --tests installs it (Debian's clang and libclang-rt-14-dev)" >&2
  exit 2
fi

dir=build-fuzz
# -fsanitize=fuzzer-no-link gives every library libFuzzer's coverage; only
# the harnesses link libFuzzer itself (tests/fuzz/meson.build). No window.
options=(-Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false -Dgui=disabled -Dcuda=disabled
         -Dc_args=-fsanitize=fuzzer-no-link)
echo "== fuzz: building ${names[*]} in $dir (clang, ASan + UBSan)"
if [ -f "$dir/build.ninja" ]; then
  meson configure "$dir" "${options[@]}" >/dev/null || exit 1
else
  CC=clang meson setup "$dir" "${options[@]}" >/dev/null || { echo "fuzz.sh: configuring $dir failed" >&2; exit 1; }
fi
targets=()
for n in "${names[@]}"; do targets+=("tests/fuzz/fuzz-$n"); done
if ! meson compile -C "$dir" "${targets[@]}" >"$dir/fuzz-build.log" 2>&1; then
  tail -n 30 "$dir/fuzz-build.log"
  echo "== fuzz: BUILD FAILED (the whole log: $dir/fuzz-build.log)"
  echo "0 passed, ${#names[@]} failed"
  exit 1
fi

# Reports name their frames only with a symbolizer: the crash files of
# forked children are sorted by the library their first frame is in (below),
# past the sanitizer's interceptors, which without names look like ours.
# It is llvm-14's (package llvm-14; clang-14 does not bring it), beside
# clang; the unversioned /usr/bin/llvm-symbolizer is package llvm.
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
bytes_in() { du -sb "$1" | cut -f1; }

for n in "${names[@]}"; do
  work=$work_root/$n
  mkdir -p "$work/corpus" "$work/crashes" "$work/child-crashes"
  cp tests/fuzz/corpus/"$n"/* "$work/corpus/" 2>/dev/null
  # (not the inputs that hang a child: each would spend the deadline)
  for r in tests/fuzz/regress/"$n"-*; do
    case $r in *hang*) continue ;; esac
    [ -f "$r" ] && cp "$r" "$work/corpus/"
  done
  seeds=$(files_in "$work/corpus")
  exe=$dir/tests/fuzz/fuzz-$n
  # libhdf5 sizes some of its own buffers from the file (4 GiB asked for in
  # H5Dread of a damaged file's labels, 0xa1a0a0d46444889 bytes in
  # H5C_protect, in the open's forked child): there a failed malloc is
  # libhdf5's error to report, as it is outside the sanitizer, not a
  # harness failure.
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
  # A forked child (the HDF5 open's, a reader's) inherits libFuzzer's
  # handler: its sanitizer report writes a crash file too. An input the
  # harness itself survives crashed only a child; where the report's first
  # frame past libc and the sanitizer's interceptors lies in a system
  # library (libhdf5), the crash is the library's, ended as the product's
  # error: kept with the child crashes. In our code it stays a finding.
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
    "fuzz-$n" "${execs:-?}" "${speed:-?}" "$seeds" "$corpus" "$(bytes_in "$work/corpus")" "$crashes"
  [ "$n" = hdf5 ] && printf '  %d inputs crashed or hung a child (libhdf5; ended as errors)' "$child"
  printf '\n'
  if [ "$child" -gt 0 ]; then
    echo "   kept in $work/child-crashes/ (open-crash: refused with an error naming the file; child-crash,"
    echo "   child-hang: a worker that the pool reports crashed or timed out; not failures here)"
  fi
  # A child (the HDF5 open's, a reading worker's) that died of a sanitizer
  # report in our code is a finding too; one in a system library (libhdf5)
  # is the library's, ended as an error.
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
