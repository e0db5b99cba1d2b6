"""The device check's assertions and report (called by tests/device/check.sh).

Arguments: MANIFEST REPORT NOTES DATASET_KIND START UNIT_RC UNIT_LOG BUNDLE SMI
           PYTORCH TORCH_CUDA CHARTS
  MANIFEST  one line per run: label, workers, start, pin, non_blocking (on|off),
            exit code (or "skipped"), summary JSON path, stderr path (tab-separated);
            "-" for each of workers to exit code: taken from the summary (a
            recorded sweep run: exit code 0 when its status is done, else 1)
  BUNDLE    the bundle's folder, whose bundle-info.txt the report quotes ("" without one)
  SMI       nvidia-smi's "index, bus id, name, ..." lines (CSV; other lines are ignored)
  PYTORCH   what the PyTorch part did; TORCH_CUDA torch.cuda.is_available()
  CHARTS    one line per chart written: name, exit code, path or reason (tab-separated)
Environment: RUNTIME_SINK=yes when the build has the runtime-API sink, so
that the driver-API sink is compared with it.
Writes REPORT; exit 0 when every assertion held, 1 otherwise.

Or: --give-up REPORT NOTES ELAPSED WHY BUNDLE: the report when nothing could
be measured (check.sh's give_up).
"""
import json
import os
import re
import sys
import time


def bundle_info(folder):
    """bundle-info.txt on one line, or None."""
    try:
        return open(os.path.join(folder, "bundle-info.txt")).read().replace("\n", ";") if folder else None
    except OSError:
        return None


if sys.argv[1] == "--give-up":
    report_path, notes_path, elapsed, why, bundle = sys.argv[2:7]
    bundle = bundle_info(bundle)
    json.dump({"ok": False, "error": why, "elapsed_s": int(elapsed), "bundle": bundle or None,
               "notes": open(notes_path).read().splitlines(), "runs": [], "assertions": []},
              open(report_path, "w"), indent=2)
    sys.exit(0)
(manifest, report_path, notes_path, dataset_kind, start, unit_rc, unit_log,
 bundle, smi_path, pytorch, torch_cuda, charts_path) = sys.argv[1:13]
bundle = bundle_info(bundle)
MODEL_MS = 10.0

runs = []
for line in open(manifest):
    label, workers, start_method, pin, nb, rc, json_path, err_path = line.rstrip("\n").split("\t")
    run = {"label": label, "summary": None, "stderr_tail": ""}
    try:
        run["stderr_tail"] = open(err_path, errors="replace").read()[-2000:]
    except OSError:
        pass
    try:
        run["summary"] = json.load(open(json_path))
    except (OSError, ValueError) as e:
        run["parse_error"] = str(e)
    if workers == "-":  # a recorded sweep run: its knobs and outcome are in its summary
        s = run["summary"] or {}
        workers, start_method, pin = s.get("workers") or 0, s.get("start") or "", s.get("pin") or ""
        nb, rc = "on" if s.get("non_blocking") is True else "off", 0 if s.get("status") == "done" else 1
    run.update(workers=int(workers), start=start_method, pin=pin, non_blocking=nb == "on",
               exit_code=None if rc == "skipped" else int(rc), skipped=rc == "skipped")
    runs.append(run)
devices = []
for line in open(smi_path):
    parts = [p.strip() for p in line.split(",")]
    if len(parts) >= 3 and parts[0].isdigit():
        devices.append({"index": int(parts[0]), "bus_id": parts[1], "name": parts[2]})
chart_rows = [l.rstrip("\n").split("\t") for l in open(charts_path) if l.strip()]
extras = {"bundle": bundle or None, "nvidia_smi_devices": devices,
          "pytorch": {"status": pytorch, "torch_cuda_available": torch_cuda or None},
          "charts": [{"chart": r[0], "ok": r[1] == "0", "detail": r[2] if len(r) > 2 else ""}
                     for r in chart_rows]}

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


def tag_of(r):
    return "%s workers=%d start=%s pin=%s non_blocking=%s" % (
        r["label"], r["workers"], r["start"], r["pin"], "on" if r["non_blocking"] else "off")


# Every run: finished, on the real GPU, exact utilization, NVML, the step.
by = {}
for r in runs:
    nbw = "on" if r["non_blocking"] else "off"
    tag = tag_of(r)
    if r["label"] == "sweep" and r["workers"] == 2:
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
    check(tag + ": gpu_util_nvml present", n is not None, "gpu_util_nvml %r, nvml %r" % (n, get(s, "nvml")))
    c = get(s, "compute_ms", "p50")
    check(tag + ": model step %g ms +-5%%" % MODEL_MS,
          isinstance(c, (int, float)) and abs(c - MODEL_MS) <= 0.05 * MODEL_MS, "compute_ms p50 %r" % c)
    if r["label"].startswith("arena-"):
        # cudaHostRegister of the memfd-backed arena, the workers writing into it.
        h = get(s, "host_bytes_copied")
        check(tag + ": registered arena, no host copy", h == 0, "host_bytes_copied %r" % h)

# Pinned against pageable, at 2 workers.
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

# The driver API's sink against the runtime API's at the same knobs (runs
# labelled driver-api and runtime-api): model step, copy and throughput
# medians within 5 % (the copy also within 0.02 ms: tens of microseconds
# jitter by more than 5 %). Until the runtime sink is gone.
def within(a, b, rel, floor=0.0):
    return isinstance(a, (int, float)) and isinstance(b, (int, float)) and abs(a - b) <= rel * abs(b) + floor


api = {}
for r in runs:
    if r["label"] in ("driver-api", "runtime-api"):
        api[(r["label"], r["pin"], "on" if r["non_blocking"] else "off")] = r["summary"]
if os.environ.get("RUNTIME_SINK") == "yes":
    for pin in ("off", "staging", "arena"):
        for nbw in ("off", "on"):
            d, rt = api.get(("driver-api", pin, nbw)), api.get(("runtime-api", pin, nbw))
            figs = [(get(d, *k), get(rt, *k)) for k in (("compute_ms", "p50"), ("copy_ms", "p50"),
                                                        ("throughput_sps",))]
            check("pin=%s non_blocking=%s: driver-API sink within 5 %% of the runtime-API sink" % (pin, nbw),
                  within(*figs[0], 0.05) and within(*figs[1], 0.05, 0.02) and within(*figs[2], 0.05),
                  "step p50 %r vs %r ms, copy p50 %r vs %r ms, %r vs %r samples/s" % (
                      figs[0] + figs[1] + figs[2]))
else:
    check("driver-API sink compared with the runtime-API sink", False,
          "no runtime-API sink in this build (-Dcudart_sink=true)")

# The sink's test program, its GPU tests run (not skipped).
unit_out = open(unit_log, errors="replace").read()
gpu_tests = [l for l in unit_out.splitlines() if l.startswith(("ok ", "not ok ")) and "-on-gpu" in l]
check("test-sink-cuda: passes, GPU tests run",
      unit_rc == "0" and len(gpu_tests) >= 3 and not any("SKIP" in l or l.startswith("not ok") for l in gpu_tests),
      "exit %s; %s" % (unit_rc, "; ".join(gpu_tests) or unit_out.strip()[-500:]))


# NVML's device is the CUDA device, matched by PCI bus id: the test's own
# messages, and nvidia-smi's view of the same bus id.
def bus_key(bus_id):
    m = re.match(r"^\s*([0-9a-fA-F]+):([0-9a-fA-F]+):([0-9a-fA-F]+)\.([0-9a-fA-F]+)\s*$", bus_id or "")
    return tuple(int(x, 16) for x in m.groups()) if m else None


cuda_line = re.search(r"# CUDA device (\d+): (.*), PCI bus id (\S+)", unit_out)
nvml_line = re.search(r"# NVML device (\d+): (.*), matched by (PCI bus id (\S+)|index)(.*)", unit_out)
bus = {"cuda": cuda_line.groups() if cuda_line else None, "nvml": nvml_line.groups() if nvml_line else None,
       "nvidia_smi": extras.get("nvidia_smi_devices")}
matched = bool(cuda_line and nvml_line and nvml_line.group(4)
               and bus_key(nvml_line.group(4)) == bus_key(cuda_line.group(3)))
smi_ok = None
if matched and isinstance(extras.get("nvidia_smi_devices"), list):
    # nvidia-smi numbers devices as NVML does.
    smi = {bus_key(d.get("bus_id")): d.get("index") for d in extras["nvidia_smi_devices"]}
    smi_ok = smi.get(bus_key(cuda_line.group(3))) == int(nvml_line.group(1))
check("NVML device matched to the CUDA device by PCI bus id",
      matched and smi_ok is not False,
      "CUDA %s; NVML %s; nvidia-smi %s" % (
          cuda_line.group(0)[2:] if cuda_line else "no line from test-sink-cuda",
          nvml_line.group(0)[2:] if nvml_line else "no line from test-sink-cuda",
          extras.get("nvidia_smi_devices")))

# The script's own copies of each batch to the GPU, timed by the probe with
# CUDA events (tests/pytorch/cuda_copy.py), where the PyTorch target ran.
copy_path = os.path.join(os.path.dirname(report_path) or ".", "pytorch-copy.json")
if os.path.exists(copy_path):
    try:
        cs = json.load(open(copy_path))
    except ValueError as e:
        cs = {"error": "not JSON: %s" % e}
    note = (cs.get("target") or {}).get("copy_note") or ""
    p50 = get(cs, "copy_ms", "p50")
    check("a script's own .to(cuda) copies timed with CUDA events",
          cs.get("status") == "done" and cs.get("sink") == "cuda" and isinstance(p50, (int, float)) and p50 > 0
          and note.startswith("timed on the device"),
          "status %s, sink %s, copy p50 %s ms, note: %s" % (cs.get("status"), cs.get("sink"), p50, note))

# The headline charts of the sweep.
charts = extras.get("charts", [])
check("the sweep's three headline charts written",
      len(charts) == 3 and all(c.get("ok") for c in charts),
      "; ".join("%s: %s" % (c.get("chart"), c.get("detail")) for c in charts) or "none")

ok = bool(assertions) and all(a["ok"] for a in assertions)
report = {
    "ok": ok,
    "elapsed_s": round(time.time() - float(start), 1),
    "dataset": dataset_kind,
    "bundle": extras.get("bundle"),
    "notes": open(notes_path).read().splitlines(),
    "pci_bus_id": bus,
    "pytorch": extras.get("pytorch"),
    "charts": charts,
    "runs": runs,
    "assertions": assertions,
    "test_sink_cuda": {"exit_code": unit_rc, "output_tail": unit_out[-6000:]},
}
json.dump(report, open(report_path, "w"), indent=2)


def fmt(v, f="%.3f"):
    return "-" if not isinstance(v, (int, float)) or isinstance(v, bool) else f % v


print("%-11s %-3s %-5s %-8s %-5s %-6s %-5s %9s %8s %10s %8s %8s %12s" % (
    "run", "w", "start", "pin", "nb", "status", "sink", "copy p50", "GB/s", "step p50", "util", "nvml",
    "host bytes"))
for r in runs:
    s = r["summary"]
    print("%-11s %-3d %-5s %-8s %-5s %-6s %-5s %9s %8s %10s %8s %8s %12s" % (
        r["label"], r["workers"], r["start"], r["pin"], "on" if r["non_blocking"] else "off",
        "skip" if r["skipped"] else (get(s, "status") or "?")[:6], (get(s, "sink") or "?")[:5],
        fmt(get(s, "copy_ms", "p50")), fmt(bandwidth_gbps(s), "%.1f"), fmt(get(s, "compute_ms", "p50")),
        fmt(get(s, "gpu_util_exact")), fmt(get(s, "gpu_util_nvml")), fmt(get(s, "host_bytes_copied"), "%d")))
print()
for a in assertions:
    print("%s  %s: %s" % ("PASS" if a["ok"] else "FAIL", a["name"], a["detail"]))
print("pytorch: %s" % (extras.get("pytorch") or {}).get("status"))
failed = sum(not a["ok"] for a in assertions)
print("\ndevice-check: %d of %d assertions held%s" % (len(assertions) - failed, len(assertions),
                                                      "" if ok else " -- FAILED"))
sys.exit(0 if ok else 1)
