"""bench-probe-ranks.py's hook workload: a DataLoader (num_workers=0,
batch_size 16) over samples that cost nearly nothing, so that what a batch
costs is the DataLoader's own work plus, under the probe, every hook the
probe runs per batch in a rank (the batch event, the stage timers, the
rank's CPU per batch). Times each next() and writes {"median_ns",
"batches"} to --report."""

import argparse
import json
import statistics
import time

import torch
from torch.utils.data import DataLoader, Dataset


class Cheap(Dataset):
    def __init__(self):
        self.x = torch.zeros(8)

    def __len__(self):
        return 1 << 30

    def __getitem__(self, i):
        return self.x, i & 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", type=int, default=3000)
    ap.add_argument("--report", required=True)
    args = ap.parse_args()
    torch.set_num_threads(1)
    it = iter(DataLoader(Cheap(), batch_size=16))
    for _ in range(50):  # warm-up
        next(it)
    times = []
    for _ in range(args.batches):
        t0 = time.perf_counter_ns()
        next(it)
        times.append(time.perf_counter_ns() - t0)
    with open(args.report, "w") as f:
        json.dump({"median_ns": statistics.median(times), "batches": len(times)}, f)


if __name__ == "__main__":
    main()
