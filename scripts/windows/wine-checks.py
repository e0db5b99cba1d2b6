"""The Windows end-to-end test's checks of what loadscope.exe wrote
(scripts/windows/test-wine.sh). Exit 0 when the check holds.

  wine-checks.py run-spawn SUMMARY   a spawned run under Wine: done, spawn,
                                     private bytes / working set measured
  wine-checks.py cuda SUMMARY        a run on the stand-in CUDA driver: done,
                                     sink cuda, copy and step timed
  wine-checks.py start-cost DB       worker start-up per platform and start
                                     method, printed; Linux fork and spawn and
                                     Windows (Wine) spawn all present
"""
import json
import sqlite3
import statistics
import sys


def find(o, k):
    """The first value of key k anywhere in o."""
    if isinstance(o, dict):
        if k in o:
            return o[k]
        o = list(o.values())
    if isinstance(o, list):
        for v in o:
            x = find(v, k)
            if x is not None:
                return x
    return None


def run_spawn(path):
    r = json.load(open(path))
    st, start = find(r, "status"), find(r, "start")
    print("    status %s, start %s, batches %s" % (st, start, find(r, "batches")))
    assert st == "done", st
    assert start == "spawn", start
    mem = json.dumps(r)
    assert "private" in mem or "working_set" in mem, "no private bytes / working set in the summary"


def cuda(path):
    r = json.load(open(path))
    assert r["status"] == "done", r["status"]
    assert r["sink"] == "cuda", r["sink"]
    assert r["copy_ms"] and r["copy_ms"]["p50"] > 0, r["copy_ms"]
    assert r["compute_ms"] and r["compute_ms"]["p50"] > 0, r["compute_ms"]


def start_cost(db):
    c = sqlite3.connect(db)
    rows = c.execute("""SELECT machine.os, run.start_method, worker.startup_ms, run.time_to_first_batch_ms, run.workers
                        FROM worker JOIN run ON run.id = worker.run_id JOIN machine ON machine.id = run.machine_id
                        WHERE worker.startup_ms IS NOT NULL""").fetchall()
    groups = {}
    for os_, start, ms, first, _ in rows:
        plat = os_ if os_.startswith("Windows") else "Linux"
        g = groups.setdefault((plat, start), ([], set()))
        g[0].append(ms)
        if first is not None:
            g[1].add(first)
    for (plat, start), (ms, first) in sorted(groups.items()):
        print("    worker start-up %-28s median %7.1f ms (%d workers); time to first batch median %7.1f ms"
              % (plat + " " + start, statistics.median(ms), len(ms),
                 statistics.median(first) if first else float("nan")))
    assert {("Linux", "fork"), ("Linux", "spawn")} <= set(groups), "missing Linux fork or spawn"
    assert any(p.startswith("Windows (Wine") and s == "spawn" for p, s in groups), "no Windows (Wine) spawn runs"


{"run-spawn": run_spawn, "cuda": cuda, "start-cost": start_cost}[sys.argv[1]](sys.argv[2])
