"""whatif --ranks against real ranks: the tests' DDP script (gloo on the CPU,
tests/pytorch/ddp.py) measured with 1 and 2 ranks (one sweep), then with 3;
the node's throughput `whatif --ranks 3 --cores C` predicts from the sweep
beside the 3-rank run's, and what `whatif --alone --ranks 2` predicts from
the 1-rank run alone beside the 2-rank run's, ROUNDS times, each round in a
store of its own. The 3-rank prediction is printed twice: with the other
load measured in the sweep (what a user gets) and with the other load
measured during the 3-rank run (the model's error without the machine's
change of load in between). Ends with the median and the worst error.

/usr/bin/python3 bench/bench-whatif-ranks.py LOADSCOPE
  LOADSCOPE: the built loadscope executable (its build tree holds the probe).
Environment: LS_BENCH_ROUNDS (default 3), LS_BENCH_BATCHES (default 100),
LS_BENCH_WORKERS (workers per rank, default 0)."""

import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DDP = os.path.join(HERE, "..", "tests", "pytorch", "ddp.py")


def loadscope(exe, *args):
    p = subprocess.run([exe] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("bench-whatif-ranks: loadscope %s failed (%d): %s" % (args[0], p.returncode, p.stderr[-2000:]))
    return p.stdout


def run_ranks(exe, db, ranks, workers, batches):
    """The 3-rank run: (its id, node throughput, other load in cores)."""
    o = json.loads(loadscope(exe, "run", "--target", "pytorch", "--script", DDP, "--python", sys.executable,
                             "--ranks", str(ranks), "--workers", str(workers), "--batches", str(batches),
                             "--timeout", "600", "--db", db, "--json"))
    return o["run_id"], o["throughput_sps"], (o.get("machine_busy") or {}).get("other_cpu_percent", 0) / 100.0


def whatif(exe, db, run, ranks, cores, *more):
    o = json.loads(loadscope(exe, "whatif", "--run", str(run), "--ranks", str(ranks), "--cores", str(cores),
                             "--db", db, "--json", *more))
    return o["predicted"]["throughput_sps"], o["model"]


def err(pred, meas):
    return (pred - meas) / meas * 100.0


def machine():
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%d cores (%s), load average %s" % (os.cpu_count() or 0, model,
                                                " ".join("%.1f" % x for x in os.getloadavg()))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    exe = sys.argv[1]
    rounds = int(os.environ.get("LS_BENCH_ROUNDS", "3"))
    batches = int(os.environ.get("LS_BENCH_BATCHES", "100"))
    workers = int(os.environ.get("LS_BENCH_WORKERS", "0"))
    cores = os.cpu_count() or 1
    print("machine: %s" % machine())
    print("ddp.py, %d batches of 8 per rank, %d worker(s) per rank, %d round(s)" % (batches, workers, rounds))
    print("%5s %9s %9s | %9s %9s %7s | %9s %9s %7s %9s %7s | %5s %5s"
          % ("round", "1 rank", "2 ranks", "2 pred", "2 meas", "err", "3 pred", "3 meas", "err",
             "3 pred'", "err'", "load", "beta"))
    e2, e3, e3b = [], [], []
    for i in range(rounds):
        with tempfile.TemporaryDirectory(prefix="ls-bench-whatif-ranks-") as scratch:
            db = os.path.join(scratch, "runs.sqlite")
            loadscope(exe, "sweep", "--target", "pytorch", "--script", DDP, "--python", sys.executable,
                      "--ranks", "1,2", "--workers", str(workers), "--batches", str(batches), "--timeout", "600",
                      "--db", db)
            runs = json.loads(loadscope(exe, "history", "--db", db, "--json"))
            by_ranks = {}
            for r in runs:
                shown = json.loads(loadscope(exe, "show", str(r["id"]), "--db", db, "--json"))
                by_ranks[shown["target"]["node"]["ranks"]] = (r["id"], shown["throughput_sps"])
            one, two = by_ranks[1], by_ranks[2]
            three_id, three, load3 = run_ranks(exe, db, 3, workers, batches)
            p2, _ = whatif(exe, db, one[0], 2, cores, "--alone")
            p3, model = whatif(exe, db, two[0], 3, cores)
            p3b, _ = whatif(exe, db, two[0], 3, cores, "--background", "%.3f" % load3)
            e2.append(err(p2, two[1]))
            e3.append(err(p3, three))
            e3b.append(err(p3b, three))
            print("%5d %9.0f %9.0f | %9.0f %9.0f %+6.1f%% | %9.0f %9.0f %+6.1f%% %9.0f %+6.1f%% | %5.2f %5.2f"
                  % (i + 1, one[1], two[1], p2, two[1], e2[-1], p3, three, e3[-1], p3b, e3b[-1],
                     model["background_cores"], model["beta"]), flush=True)
    for name, e in (("2 ranks from 1 (--alone)", e2), ("3 ranks from 1 and 2", e3),
                    ("3 ranks from 1 and 2, the 3-rank run's load", e3b)):
        print("%-45s median |error| %5.1f %%, worst %+6.1f %%"
              % (name, statistics.median(abs(x) for x in e), max(e, key=abs)))
    print("machine at the end: %s" % machine())


if __name__ == "__main__":
    main()
