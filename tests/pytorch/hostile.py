"""What a hostile (or broken) script can do to the probe's channel and its
process tree: tests/test-hostile-probe.c runs it as
`hostile.py MODE MARKER [DATA]` (MARKER only marks the tree's processes).

  bracket      a line of 2,000,000 '[' (past the line cap)
  deep         '[' x 100,000 in a line under the cap (past the nesting cap)
  nonewline    8 MiB with no newline, then sleeps
  close        closes the probe's fd and sleeps
  forge-seq    two real batches, then a batch with seq -5
  forge-samples  ... then a batch with 4294967615 samples
  forge-pid    ... then a worker set naming pid 1
  setsid       a child that calls setsid() and sleeps, then a normal run
  tempfiles    2 workers (the probe's files, multiprocessing's), then SIGKILL
  chatter-early  a valid line every 0.5 s, no DataLoader (no progress)
  chatter      three batches, then the same (--timeout must still win)
  normal       a short normal run
"""
import os
import signal
import subprocess
import sys
import time

import torch
from torch.utils.data import DataLoader, TensorDataset


def channel():
    return int(os.environ["LOADSCOPE_PROBE_FD"])


def write(data):
    fd = channel()
    while data:
        data = data[os.write(fd, data):]


def iterate(batches, workers=0):
    loader = DataLoader(TensorDataset(torch.zeros(64, 4)), batch_size=8, num_workers=workers)
    for i, (x,) in enumerate(loader):
        if i + 1 >= batches:
            break
    return loader


def forged(line):
    iterate(3)
    write(line.encode() + b"\n")
    time.sleep(3600)


def main():
    mode = sys.argv[1]
    if mode == "bracket":
        write(b"[" * 2000000 + b"\n")
        time.sleep(3600)
    elif mode == "deep":
        write(b"[" * 100000 + b"\n")
        time.sleep(3600)
    elif mode == "nonewline":
        write(b"x" * (8 << 20))
        time.sleep(3600)
    elif mode == "close":
        os.close(channel())
        time.sleep(3600)
    elif mode == "forge-seq":
        forged('{"event":"batch","seq":-5,"epoch":0,"batch":9,"samples":8,"ready_ms":1.0,"wait_ms":0.5}')
    elif mode == "forge-samples":
        forged('{"event":"batch","seq":1000,"epoch":0,"batch":9,"samples":4294967615,"ready_ms":1.0,'
               '"wait_ms":0.5}')
    elif mode == "forge-pid":
        forged('{"event":"workers","epoch":0,"pids":[1]}')
    elif mode == "setsid":
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)", sys.argv[2]],
                         start_new_session=True)
        iterate(4)
    elif mode in ("chatter-early", "chatter"):
        if mode == "chatter":
            iterate(3)
        while True:
            write(b'{"event":"stages","getitem_ms":1}\n')
            time.sleep(0.5)
    elif mode in ("forge-finished", "forge-finished-late"):
        # The probe's own "finished" forged, then an exit no atexit sees:
        # without the runner's end token it is not a finished run.
        iterate(3)
        write(b'{"event":"finished","reason":"batches","batches":2,"cpu_ms":1.0}\n')
        if mode == "forge-finished-late":
            time.sleep(1)
        os._exit(0)
    elif mode == "tempfiles":
        iterate(3, workers=2)
        os.kill(os.getpid(), signal.SIGKILL)
    else:
        iterate(4)


if __name__ == "__main__":
    main()
