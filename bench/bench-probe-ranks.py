"""The probe's cost per rank: a 2-rank DDP workload (gloo, CPU) started
plainly as torchrun would and under the probe's launcher (--ranks 2),
alternating, REPEATS times; each rank's own CPU time per sample in its
training process (where the probe's work lands; steady when other processes
load the machine, which the wall time is not) and the ratio probed/plain
(goal: within 2 % per rank).

python3 bench/bench-probe-ranks.py LOADSCOPE
  LOADSCOPE: the built loadscope executable (its build tree holds the probe).
Environment: LS_BENCH_REPEATS (default 3), LS_BENCH_BATCHES (default 60)."""

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOAD = os.path.join(HERE, "bench-probe-ranks-workload.py")
RANKS = 2


def probe_dir(loadscope):
    build = os.path.dirname(os.path.dirname(os.path.abspath(loadscope)))
    d = os.path.join(build, "data", "probe")
    if not os.path.isfile(os.path.join(d, "loadscope_probe", "ranks.py")):
        sys.exit("bench-probe-ranks: no loadscope_probe with ranks.py in %s" % d)
    return d


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(probe, batches, scratch, label):
    """Each rank's CPU ms per sample, as the workload timed itself."""
    report = os.path.join(scratch, label + "-%d.json")
    args = [WORKLOAD, "--batches", str(batches), "--report", report]
    if probe:
        env = dict(os.environ, PYTHONPATH=probe, LOADSCOPE_PROBE_FD="-1",
                   LOADSCOPE_PROBE_CONFIG=json.dumps({"ranks": RANKS, "loader": 0, "batches": 0}))
        procs = [subprocess.Popen([sys.executable, "-m", "loadscope_probe"] + args, env=env)]
    else:
        port = free_port()
        procs = []
        for r in range(RANKS):
            env = dict(os.environ, RANK=str(r), LOCAL_RANK=str(r), WORLD_SIZE=str(RANKS),
                       LOCAL_WORLD_SIZE=str(RANKS), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                       OMP_NUM_THREADS="1")
            procs.append(subprocess.Popen([sys.executable] + args, env=env))
    for p in procs:
        if p.wait() != 0:
            sys.exit("bench-probe-ranks: the %s workload failed (%d)" % (label, p.returncode))
    out = []
    for r in range(RANKS):
        with open(report % r) as f:
            out.append(json.load(f)["cpu_ms_per_sample"])
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    try:
        import torch
    except ImportError as e:
        print("bench-probe-ranks: skipped: %s cannot import torch (%s)" % (sys.executable, e))
        return 77
    probe = probe_dir(sys.argv[1])
    repeats = int(os.environ.get("LS_BENCH_REPEATS", "3"))
    batches = int(os.environ.get("LS_BENCH_BATCHES", "60"))
    scratch = tempfile.mkdtemp(prefix="bench-probe-ranks-")
    print("bench-probe-ranks: %s, %d cores, torch %s; %d ranks, %d batches a run, %d repeats"
          % (sys.executable, os.cpu_count(), torch.__version__, RANKS, batches, repeats))
    plain = [[] for _ in range(RANKS)]
    probed = [[] for _ in range(RANKS)]
    for i in range(repeats):
        for label, store in (("plain", plain), ("probed", probed)):
            got = run(probe if label == "probed" else None, batches, scratch, "%s%d" % (label, i))
            for r in range(RANKS):
                store[r].append(got[r])
            print("  %-6s repeat %d: CPU ms/sample per rank %s" % (label, i, ", ".join("%.3f" % v for v in got)))
    worst = 0.0
    for r in range(RANKS):
        a, b = statistics.median(plain[r]), statistics.median(probed[r])
        ratio = b / a
        worst = max(worst, ratio)
        print("rank %d: CPU per sample in its training process, median: plain %.3f ms, probed %.3f ms: "
              "probed/plain %.3f" % (r, a, b, ratio))
    print("probe cost per rank, the worse rank: %+.1f %% (goal: within 2 %%)" % ((worst - 1) * 100))
    return 0


if __name__ == "__main__":
    sys.exit(main())
