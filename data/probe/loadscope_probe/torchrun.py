"""run --ranks N --launcher torchrun: the user's own `torchrun --standalone
--nproc-per-node N` starts the ranks, with the probe in each.

This process (the launcher, as in loadscope_probe.ranks) runs torchrun from
PATH with the probe's __main__.py as the script to start, so each rank
torchrun starts is `python __main__.py SCRIPT ARGS` with torchrun's own
environment (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT, OMP_NUM_THREADS).
torchrun passes no pipe on to its ranks: each rank writes its lines to a
file of the run's folder (rank-RANK.jsonl), which a thread here follows as
for ranks the script spawns (loadscope_probe.spawned); rank 0's lines go on
to the runner, every rank's are summed up into one "ranks" event. A rank
that reports an error, or torchrun ending with a non-zero status, ends the
run naming it; torchrun and its ranks stay in the runner's process tree."""

import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile

from loadscope_probe import ranks as launcher
from loadscope_probe import spawned

PROBE_MAIN = launcher.PROBE_MAIN


def launch(script, args, config, out):
    n = int(config["ranks"])
    threads = int(config.get("threads") or 0)
    warmup = int(config.get("warmup") or 0)
    name = os.path.basename(script)
    exe = shutil.which("torchrun")
    if not exe:
        out.error("launcher_missing", "--launcher torchrun: no torchrun on PATH (%s); give --launcher probe to "
                  "start the ranks as torchrun does" % os.environ.get("PATH", ""))
        return 1
    folder = tempfile.mkdtemp(prefix="loadscope-ranks-", dir=os.environ.get("LOADSCOPE_PROBE_DIR") or None)
    cfg = {k: v for k, v in config.items() if k not in ("ranks", "launcher")}
    cfg["ranks_folder"] = folder
    env = dict(os.environ, LOADSCOPE_PROBE_CONFIG=json.dumps(cfg), LOADSCOPE_PROBE_FD="-1")
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    argv = [exe, "--standalone", "--nproc-per-node", str(n), PROBE_MAIN, script] + list(args)
    follower = Follower(folder, n, out)
    try:
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
    except OSError as e:
        follower.stop()
        out.error("launcher_failed", "--launcher torchrun: %s could not start: %s" % (exe, e))
        return 1
    tail = collections.deque(maxlen=launcher.LAST_LINES)
    for line in iter(proc.stdout.readline, b""):
        text = line.decode("utf-8", "replace").rstrip("\r\n")
        tail.append(text[:launcher.LINE_CUT])
        try:
            sys.stderr.write(text + "\n")
        except OSError:
            pass
    code = proc.wait()
    follower.stop()
    rs = follower.ranks
    # The first to fail: the others' errors follow from it (a closed
    # connection in the allreduce)
    errors = [r for r in rs if r.error is not None]
    failed = min(errors, key=lambda r: r.error.get("at") or float("inf")) if errors else None
    if failed is not None:
        failed.tail.extend(tail)
        return launcher.fail(failed, name, out)
    if code != 0 or any(r.finished is None for r in rs):
        said = " | ".join(t for t in tail if t.strip())
        missing = [str(r.rank) for r in rs if r.finished is None]
        out.error("launcher_failed", "torchrun (%s) %s%s%s" % (
            exe, launcher.how_it_ended(code),
            "; rank %s did not finish" % ", ".join(missing) if missing else "",
            "; its last lines of output: %s" % said if said else ""))
        return 1
    out.send("ranks", world_size=n, master_port=None, ranks=[launcher.summary(r, warmup) for r in rs])
    t = os.times()
    out.send("finished", **dict(rs[0].finished, cpu_ms=(t.user + t.system) * 1000.0))
    return 0


class Follower(spawned.Follower):
    """spawned's follower, stopped without its "ranks" event (sent above,
    once torchrun's status is known)."""

    def stop(self):
        self.done.set()
        self.thread.join()
        self.read()

