# Sourced by tests/device/check.sh (the bundle of --bundle DIR, or one made here): checks,
# that the bundle can run here. Sets LOADSCOPE, LOADSCOPE_WORKER, UNIT_BIN,
# RUNTIME_SINK and jpeg; calls give_up (exit 2) with the reason when not.

[ -f "$BUNDLE/bundle-info.txt" ] && [ -x "$BUNDLE/loadscope" ] && [ -x "$BUNDLE/bin/loadscope-worker" ] ||
  give_up "bundle $BUNDLE is incomplete (no bundle-info.txt, loadscope or bin/loadscope-worker): make it again with bash tests/device/bundle.sh"
note "bundle: $(tr '\n' ';' <"$BUNDLE/bundle-info.txt")"
bundle_field() { sed -n "s/^$1=//p" "$BUNDLE/bundle-info.txt"; }

[ "$(bundle_field cuda)" = yes ] ||
  give_up "bundle $BUNDLE was built without CUDA (bundle-info.txt says cuda=$(bundle_field cuda)): make it again"
# The old runtime-API sink beside the driver API's (-Dcudart_sink=true),
# for the comparison of the two.
RUNTIME_SINK=$(bundle_field cuda_runtime)

# The bundle's own glibc needs against this machine's glibc.
need=$(bundle_field glibc_needed)
have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{ print $2 }')
if [ -n "$need" ] && [ "$need" != unknown ] && [ -n "$have" ]; then
  lowest=$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -n 1)
  [ "$lowest" = "$need" ] ||
    give_up "bundle needs glibc >= $need, this machine has glibc $have: make the bundle on an older system"
  note "glibc $have (the bundle needs >= $need)"
fi

# Every library is in the bundle or the C runtime (where readelf exists).
if command -v readelf >/dev/null 2>&1; then
  bash "$ROOT/tests/device/bundle-lib.sh" verify "$BUNDLE" >"$WORK/bundle-verify.log" 2>&1 ||
    give_up "bundle $BUNDLE is missing libraries: $(grep -v 'ELF files checked' "$WORK/bundle-verify.log" | head -n 3 | tr '\n' ' ')"
fi

# It starts: a loader or library error shows here, not as a failed run.
timeout 30 "$BUNDLE/loadscope" run --help-all >"$WORK/bundle-start.log" 2>&1 ||
  give_up "bundle does not start: $BUNDLE/loadscope run --help-all: $(grep -v '^$' "$WORK/bundle-start.log" | head -n 3 | tr '\n' ' ')"

LOADSCOPE=$BUNDLE/loadscope
export LOADSCOPE_WORKER=$BUNDLE/bin/loadscope-worker
UNIT_BIN=
[ -x "$BUNDLE/bin/test-sink-cuda" ] && UNIT_BIN=$BUNDLE/test-sink-cuda
[ -n "$UNIT_BIN" ] || note "the bundle has no test-sink-cuda: its GPU tests are not run"
jpeg=yes
