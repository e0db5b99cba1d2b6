#!/usr/bin/env bash
# meson test (suite device), no GPU needed: test-bundle.sh bundle|no-gpu BUILDDIR
#   bundle: BUILDDIR's executables, packaged by bundle.sh, need nothing outside
#           the bundle but the C runtime (readelf, then ldd), the wrappers
#           start, and a spawn-mode run from a moved copy finds its worker;
#   no-gpu: check.sh --bundle ends quickly with exit 2 and "no usable GPU" in
#           its output and report (skipped where a GPU answers).
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
mode=${1:?usage: test-bundle.sh bundle|no-gpu BUILDDIR}
build=${2:?usage: test-bundle.sh bundle|no-gpu BUILDDIR}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/loadscope-bundle-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
LS_TAG=FAIL # die: "FAIL: why" on stderr, exit 1
. "$HERE/../../scripts/lib.sh"

start=$(date +%s)
bash "$HERE/bundle.sh" --from "$build" --out "$TMP/bundle" --max-mb 0 || die "bundle.sh --from $build failed"
B=$TMP/bundle
echo "bundle made in $(($(date +%s) - start)) s; $(grep size_bytes "$B/bundle-info.txt")"
# The workers and the runner must find the bundle's, not the build's.
unset LOADSCOPE_WORKER LOADSCOPE

case "$mode" in
  bundle)
    bash "$HERE/bundle-lib.sh" verify "$B" || die "a DT_NEEDED resolves neither in the bundle nor the C runtime"

    # ld.so's view: with the bundle's library path, everything it loads is
    # in the bundle or an allow-listed C runtime library.
    allowed='^(libc|libm|libmvec|libpthread|libdl|librt|libresolv|libutil|libanl|libgcc_s|libstdc\+\+)\.so|^ld-linux|^linux-vdso|^/lib64/ld-linux'
    for f in "$B"/bin/*; do
      out=$(env LD_LIBRARY_PATH="$B/lib" ldd "$f" 2>&1) || die "ldd $f: $out"
      ! grep -q "not found" <<<"$out" || die "$f: $(grep 'not found' <<<"$out" | head -n 3)"
      while read -r name arrow path _; do
        [ "$arrow" = "=>" ] || continue
        case "$path" in "$B"/lib/*) continue ;; esac
        [[ "$name" =~ $allowed ]] || die "$(basename "$f") loads $name from $path, outside the bundle"
      done <<<"$out"
    done
    echo "ldd: every library of bin/* is in the bundle or the C runtime"

    # bundle-info.txt says whether the runtime-API sink is in (check.sh
    # compares the two sinks only then): as the build was configured.
    want=no
    meson introspect "$build" --buildoptions | grep -q '"name": "cudart_sink", "value": true' && want=yes
    grep -qx "cuda_runtime=$want" "$B/bundle-info.txt" ||
      die "bundle-info.txt says $(grep cuda_runtime "$B/bundle-info.txt"), the build has cudart_sink $want"
    echo "bundle-info.txt: cuda_runtime=$want, as configured"

    # The wrappers start, and a spawned worker is found inside the bundle:
    # run with the build's worker out of reach (a copy of the bundle
    # elsewhere, the build folder not on any path).
    "$B/loadscope" run --help-all >/dev/null 2>"$TMP/help.err" || die "the loadscope wrapper does not start: $(cat "$TMP/help.err")"
    cp -a "$B" "$TMP/moved"
    rm -rf "$B"
    out=$(cd "$TMP" && XDG_DATA_HOME=$TMP/xdg "$TMP/moved/loadscope" run --dataset synthetic --count 32 --size 16x16 \
      --batch-size 8 --workers 1 --start spawn --sink sim --model-ms 1 --no-db --json 2>"$TMP/run.err") ||
      die "a spawn-mode run from the moved bundle failed: $(tail -n 3 "$TMP/run.err")"
    grep -q '"status" *: *"done"' <<<"$out" || die "the spawn-mode run did not finish: $out"
    echo "a spawn-mode run from a moved bundle: done"
    ;;
  no-gpu)
    if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
      echo "SKIP: a GPU answers here"
      exit 77
    fi
    expect="no usable GPU"
    grep -q '^cuda=yes' "$B/bundle-info.txt" || expect="built without CUDA"
    t0=$(date +%s)
    OUT=$TMP/out bash "$HERE/check.sh" --bundle "$B" >"$TMP/check.log" 2>&1
    rc=$?
    took=$(($(date +%s) - t0))
    cat "$TMP/check.log"
    echo "check.sh --bundle: exit $rc in $took s"
    [ "$rc" -eq 2 ] || die "check.sh --bundle exited $rc, not 2"
    grep -q "$expect" "$TMP/check.log" || die "its output does not say '$expect'"
    ! grep -qiE "could not build|cannot build|error while loading shared libraries|missing libraries" "$TMP/check.log" ||
      die "it failed on the build or a library, not on the GPU"
    [ -f "$TMP/out/device-report.json" ] || die "no \$OUT/device-report.json"
    python3 - "$TMP/out/device-report.json" "$expect" <<'PY' || die "the report does not say '$expect'"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["ok"] is False, r
assert sys.argv[2] in r["error"], r["error"]
assert r["bundle"], "no bundle description"
print("report: " + r["error"])
PY
    ;;
  *) die "unknown mode '$mode'" ;;
esac
echo "PASS"
