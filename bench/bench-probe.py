"""The PyTorch probe's cost, and Loadscope's loader against the user's
PyTorch pipeline on the same images.

python3 bench/bench-probe.py LOADSCOPE [OUT_DIR]
  LOADSCOPE: the built loadscope executable (its build tree holds the
  probe, data/probe). Needs an interpreter with torch and torchvision
  (this one: run it with /usr/bin/python3 on Debian); says so and exits
  77 (skipped) otherwise.

1. Probe cost: bench-probe-workload.py (tests/pytorch/imagefolder.py's
   pipeline, timing itself) runs plain and under `python -m
   loadscope_probe` with the same knobs, alternating, REPEATS times per
   worker count; each run's own throughput and its main process's CPU
   time per sample (where the probe's work lands; steady when other
   processes load the machine, which the wall time is not), and the
   ratios probed/plain (goal: within 2 %).
2. Side by side: `loadscope sweep` of Loadscope's loader (--crop 64, the
   script's crop, --sink none --model-ms 0) and of the unmodified
   tests/pytorch/imagefolder.py (--target pytorch) over workers 0..4 on the
   same images and batch size, into one store; the table of both and their
   ratio, and the chart `loadscope export --all --chart target` as
   OUT_DIR/bench-probe-target.png.
Environment: LS_BENCH_IMAGES (images to use; default: 512 generated),
LS_BENCH_REPEATS (default 5), LS_BENCH_BATCHES (default 40)."""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
WORKLOAD = os.path.join(HERE, "bench-probe-workload.py")
SCRIPT = os.path.join(SOURCE, "tests", "pytorch", "imagefolder.py")
BATCH = 16


def probe_dir(loadscope):
    build = os.path.dirname(os.path.dirname(os.path.abspath(loadscope)))
    for d in (os.path.join(build, "data", "probe"), os.path.join(SOURCE, "data", "probe")):
        if os.path.isfile(os.path.join(d, "loadscope_probe", "__main__.py")):
            return d
    sys.exit("bench-probe: no loadscope_probe next to %s or in the source tree" % loadscope)


def drain(fd, sink):
    with os.fdopen(fd, "rb") as f:
        for line in f:
            sink.append(line)


def workload(dataset, workers, batches, probe, batch=None):
    """One run of the workload: its throughput (samples/s) as it timed
    itself, and its main process's CPU ms per sample.
    probe: the probe's folder (run under it), or None (plain)."""
    argv = [sys.executable]
    env = dict(os.environ)
    pass_fds = ()
    events = []
    reader = None
    if probe:
        r, w = os.pipe()
        argv += ["-m", "loadscope_probe"]
        env["PYTHONPATH"] = probe + os.pathsep + env.get("PYTHONPATH", "")
        env["LOADSCOPE_PROBE_FD"] = str(w)
        env["LOADSCOPE_PROBE_CONFIG"] = json.dumps({
            "workers": workers, "batch_size": batch or BATCH, "prefetch": 2, "persistent": workers > 0,
            "pin": "off", "start": "fork", "loader": 0, "batches": 0})
        pass_fds = (w,)
        reader = threading.Thread(target=drain, args=(r, events))
        reader.start()
    argv += [WORKLOAD] + ([dataset] if dataset else ["--synthetic"])
    argv += ["--workers", str(workers), "--batch-size", str(batch or BATCH), "--batches", str(batches)]
    p = subprocess.run(argv, env=env, pass_fds=pass_fds, capture_output=True, text=True)
    if probe:
        os.close(w)
        reader.join()
    if p.returncode != 0:
        sys.exit("bench-probe: the workload failed (%s):\n%s" % ("probed" if probe else "plain", p.stderr))
    out = json.loads(p.stdout.strip().splitlines()[-1])
    if probe and not any(b'"event":"batch"' in e for e in events):
        sys.exit("bench-probe: the probe reported no batch: it did not measure the loader")
    return (out["samples"] / out["seconds"], out["cpu_seconds"] * 1e3 / out["samples"],
            out["seconds"] * 1e3 / max(1, batches - 1))


def loadscope_json(loadscope, *args):
    p = subprocess.run([loadscope, *args], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("bench-probe: loadscope %s failed (%d):\n%s" % (" ".join(args[:3]), p.returncode, p.stderr))
    return p.stdout


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    loadscope = os.path.abspath(sys.argv[1])
    out_dir = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else os.getcwd()
    try:
        import torch  # noqa: F401
        import torchvision  # noqa: F401
    except ImportError as e:
        print("bench-probe: skipped: %s cannot import torch and torchvision (%s); "
              "run it with /usr/bin/python3 after bash bench/setup-pytorch.sh" % (sys.executable, e))
        return 77
    probe = probe_dir(loadscope)
    repeats = int(os.environ.get("LS_BENCH_REPEATS", "5"))
    batches = int(os.environ.get("LS_BENCH_BATCHES", "40"))
    scratch = tempfile.mkdtemp(prefix="bench-probe-")
    dataset = os.environ.get("LS_BENCH_IMAGES")
    if not dataset:
        dataset = os.path.join(scratch, "images")
        loadscope_json(loadscope, "make-dataset", "--format", "jpeg-dir", "--count", "512", "--size", "160x120",
                       dataset)
    print("bench-probe: %s, %d cores, torch %s; images %s; batch %d, %d batches a run"
          % (sys.executable, os.cpu_count(), torch.__version__, dataset, BATCH, batches))

    # 1. The probe's cost: plain and probed alternate, so drift hits both.
    print("\n1. probe cost: the script's own throughput (img/s) and its main process's CPU per sample (ms),")
    print("   plain and under the probe, alternating")
    print("%7s %6s %10s %10s %8s %10s %10s %8s" % ("workers", "repeat", "plain", "probed", "ratio", "cpu plain",
                                                   "cpu probed", "ratio"))
    summary, batch_ms = [], []
    for workers in (0, 2):
        workload(dataset, workers, 5, None)  # page cache and imports warm
        sps, cpu, plain_batch = [], [], []
        for rep in range(repeats):
            order = (False, True) if rep % 2 == 0 else (True, False)
            got = {probed: workload(dataset, workers, batches, probe if probed else None) for probed in order}
            sps.append(got[True][0] / got[False][0])
            plain_batch.append(got[False][2])
            cpu.append(got[True][1] / got[False][1])
            print("%7d %6d %10.1f %10.1f %8.3f %10.3f %10.3f %8.3f" % (workers, rep, got[False][0], got[True][0],
                  sps[-1], got[False][1], got[True][1], cpu[-1]))
        summary.append((workers, sps, cpu))
        batch_ms.append((workers, statistics.median(plain_batch)))
    print("\n%7s %22s %22s" % ("workers", "throughput ratio", "CPU/sample ratio"))
    print("%7s %22s %22s" % ("", "p50 (min..max)", "p50 (min..max)"))
    for w, sps, cpu in summary:
        cells = ["%.3f (%.3f..%.3f)" % (statistics.median(v), min(v), max(v)) for v in (sps, cpu)]
        spread = max(cpu) - min(cpu)
        verdict = ("spread %.0f %%: too noisy here to tell 2 %%" % (spread * 100) if spread > 0.04
                   else "within 2 %" if statistics.median(cpu) <= 1.02 else "NOT within 2 % (goal)")
        print("%7d %22s %22s  CPU: %s" % (w, cells[0], cells[1], verdict))
    print("(probed/plain: a throughput ratio above 1 or a CPU ratio below 1 is the probe costing nothing measurable;")
    print(" on a loaded machine both spread far more than 2 %: the next part measures the probe's cost directly)")

    # 1b. What the probe adds to one next(), where a batch costs microseconds.
    n = 4000
    print("\n1b. the probe's own cost per batch: %d batches of tiny in-memory tensors, no step, 0 workers" % n)
    print("%6s %14s %14s %12s" % ("repeat", "plain us/batch", "probed us/batch", "added us"))
    added = []
    for rep in range(repeats):
        order = (False, True) if rep % 2 == 0 else (True, False)
        got = {probed: workload(None, 0, n, probe if probed else None, batch=4)[2] * 1e3 for probed in order}
        added.append(got[True] - got[False])
        print("%6d %14.1f %14.1f %12.1f" % (rep, got[False], got[True], added[-1]))
    add_us = statistics.median(added)
    for w, plain_ms in batch_ms:
        print("workers %d: the ImageFolder pipeline's batch takes %.1f ms (p50, plain); the probe adds %.1f us: %.3f %%  %s"
              % (w, plain_ms, add_us, 100 * add_us / 1e3 / plain_ms,
                 "within 2 %" if add_us / 1e3 / plain_ms <= 0.02 else "NOT within 2 % (goal)"))

    # 2. Side by side: the C loader and the script over the same images.
    store = os.path.join(scratch, "side-by-side.sqlite")
    common = ["--workers", "0,1,2,3,4", "--batch-size", str(BATCH), "--batches", str(batches), "--db", store,
              "--quiet"]
    loadscope_json(loadscope, "sweep", "--dataset", dataset, "--crop", "64", "--sink", "none", "--model-ms", "0",
                   *common)
    loadscope_json(loadscope, "sweep", "--target", "pytorch", "--script", SCRIPT, "--python", sys.executable,
                   "--script-args", dataset, *common)
    rows = json.loads(loadscope_json(loadscope, "history", "--db", store, "--json"))
    by = {}
    for r in rows:
        key = "script" if r["format"] == "pytorch" else "loader"
        by.setdefault(key, {})[r["workers"]] = r["throughput_sps"]
    print("\n2. side by side, same images, batch %d (img/s; the script includes its own step)" % BATCH)
    print("%7s %12s %12s %16s" % ("workers", "loadscope", "pytorch", "loadscope/pytorch"))
    for w in range(5):
        a, b = by.get("loader", {}).get(w), by.get("script", {}).get(w)
        ratio = "%.2f" % (a / b) if a and b else "-"
        print("%7d %12s %12s %16s" % (w, "%.1f" % a if a else "-", "%.1f" % b if b else "-", ratio))
    os.makedirs(out_dir, exist_ok=True)
    png = os.path.join(out_dir, "bench-probe-target.png")
    print(loadscope_json(loadscope, "export", "--db", store, "--all", "--chart", "target", "--format", "png",
                         "--force", "-o", png).strip())
    subprocess.run(["rm", "-rf", scratch])
    return 0


if __name__ == "__main__":
    sys.exit(main())
