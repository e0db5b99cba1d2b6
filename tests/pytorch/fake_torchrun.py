"""A stand-in for `torchrun --standalone --nproc-per-node N SCRIPT ARGS`
(Debian 12's own fails at start in torch.distributed.elastic): starts N
copies of `python SCRIPT ARGS` as torchrun starts its ranks (RANK,
LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, a free
loopback port, OMP_NUM_THREADS=1 unless set, TORCHELASTIC_RUN_ID), waits
for them, and when one fails ends the others and exits with its status.
$FAKE_TORCHRUN_LOG, if set, gets one line per rank: "RANK PID" (a test
checks that the ranks the probe measured are the ones started here). A
test puts a `torchrun` that runs this first on PATH."""

import os
import socket
import subprocess
import sys
import time


def main(argv):
    n, i, standalone = 1, 0, False
    while i < len(argv) and argv[i].startswith("--"):
        a = argv[i]
        if a == "--standalone":
            standalone = True
        elif a in ("--nproc-per-node", "--nproc_per_node"):
            i += 1
            n = int(argv[i])
        elif a.startswith("--nproc-per-node=") or a.startswith("--nproc_per_node="):
            n = int(a.split("=", 1)[1])
        else:
            sys.stderr.write("fake torchrun: %s is not understood here\n" % a)
            return 2
        i += 1
    if not standalone or i >= len(argv):
        sys.stderr.write("usage: torchrun --standalone --nproc-per-node N SCRIPT [ARGS...]\n")
        return 2
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = os.environ.get("FAKE_TORCHRUN_LOG")
    procs = []
    for rank in range(n):
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(n),
                   LOCAL_WORLD_SIZE=str(n), GROUP_RANK="0", MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=str(port), TORCHELASTIC_RUN_ID="none")
        env.setdefault("OMP_NUM_THREADS", "1")
        p = subprocess.Popen([sys.executable] + argv[i:], env=env)
        procs.append(p)
        if log:
            with open(log, "a") as f:
                f.write("%d %d\n" % (rank, p.pid))
    # torchrun's agent: the first rank to fail ends the others
    while True:
        codes = [p.poll() for p in procs]
        bad = [c for c in codes if c not in (None, 0)]
        if bad:
            for p in procs:
                if p.poll() is None:
                    p.kill()
            for p in procs:
                p.wait()
            return bad[0] if bad[0] > 0 else 1
        if all(c == 0 for c in codes):
            return 0
        time.sleep(0.05)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
