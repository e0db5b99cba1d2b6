"""Scripts that start their own ranks with torch.multiprocessing.spawn (or
start_processes with the spawn method): every rank probed.

In the script's process the probe wraps spawn's function in ProbedRank,
which each spawned rank unpickles and calls: it installs the probe there
(knobs, timings, stages, as in the script's own process) writing its lines
to a file of the run's folder ($LOADSCOPE_PROBE_DIR, which the runner
removes), then calls the script's function. A thread of the script's process
follows those files: rank 0's lines go on to the runner as they come (its
timeline is the run's), every rank's are summed up (loadscope_probe.ranks)
and sent as one "ranks" event when spawn returns. A rank's exception reaches
the script as torch's ProcessRaisedException ("process 1 terminated with
the following error"), which the probe reports as the script's."""

import os
import tempfile
import threading
import time

from loadscope_probe import ranks as launcher
from loadscope_probe.output import Output

FOLLOW_S = 0.05  # how often the files are read


class ProbedRank:
    """spawn's function, probed in the rank that calls it."""

    def __init__(self, fn, config, folder):
        self.fn = fn
        self.config = config
        self.folder = folder

    def __call__(self, i, *args):
        import torch
        from loadscope_probe import probe
        path = os.path.join(self.folder, "rank-%d.jsonl" % i)
        out = Output(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
        config = dict(self.config, rank=i)
        launcher.in_rank(config, out, torch)
        state = probe.install(config, out)
        reason = "script_ended"
        try:
            self.fn(i, *args)
        except probe.Stop:
            reason = "batches"
        except BaseException as e:
            out.error("script_raised", "rank %d raised %s: %s" % (i, type(e).__name__, e))
            out.close()
            raise
        state.close_pending()
        state.stop_workers()
        out.finished(reason, state)
        out.close()


class Follower:
    """Reads the ranks' files as they grow, in a thread."""

    def __init__(self, folder, n, out):
        self.folder = folder
        self.ranks = [launcher.Rank(i) for i in range(n)]
        self.out = out
        self.offsets = [0] * n
        self.partial = [b""] * n
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def read(self):
        for r in self.ranks:
            path = os.path.join(self.folder, "rank-%d.jsonl" % r.rank)
            try:
                with open(path, "rb") as f:
                    f.seek(self.offsets[r.rank])
                    data = f.read()
            except OSError:
                continue
            self.offsets[r.rank] += len(data)
            *lines, self.partial[r.rank] = (self.partial[r.rank] + data).split(b"\n")
            for line in lines:
                launcher.take_line(r, line, self.out)

    def run(self):
        while not self.done.wait(FOLLOW_S):
            self.read()

    def finish(self, warmup):
        self.done.set()
        self.thread.join()
        self.read()
        self.out.send("ranks", world_size=len(self.ranks), master_port=None,
                      ranks=[launcher.summary(r, warmup) for r in self.ranks])


def install(config, out, state):
    """Wraps torch.multiprocessing's spawn and start_processes (spawn method)."""
    import torch.multiprocessing as tmp
    original = tmp.start_processes

    def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
        if start_method != "spawn" or not join or isinstance(fn, ProbedRank):
            return original(fn, args, nprocs, join, daemon, start_method)
        folder = tempfile.mkdtemp(prefix="loadscope-ranks-", dir=os.environ.get("LOADSCOPE_PROBE_DIR") or None)
        follower = Follower(folder, nprocs, out)
        state.measured = state.measured or "spawned ranks"  # the ranks' loaders are measured
        try:
            return original(ProbedRank(fn, config, folder), args, nprocs, join, daemon, start_method)
        finally:
            follower.finish(int(config.get("warmup") or 0))

    def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
        return start_processes(fn, args, nprocs, join, daemon, start_method)

    tmp.start_processes = start_processes
    tmp.spawn = spawn
    try:
        import torch.multiprocessing.spawn as spawn_module
        spawn_module.start_processes = start_processes
        spawn_module.spawn = spawn
    except ImportError:
        pass
