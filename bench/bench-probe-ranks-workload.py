"""bench-probe-ranks.py's DDP workload: one rank (RANK, WORLD_SIZE and
MASTER_ADDR/PORT in the environment), gloo on the CPU, its DataLoader
(num_workers=0) building batches with CPU work in __getitem__, a small
model; after 5 warm-up batches it times its own CPU per sample, the whole
process's and its main thread's (where the loading, the step and the probe's
hooks run with num_workers=0; gloo's own threads, whose CPU follows how long
a rank waits for the other, are not in it), and writes {"cpu_ms_per_sample",
"main_cpu_ms_per_sample", "samples", "seconds"} to --report (%d: the rank)."""

import argparse
import json
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

WARMUP = 5


class Work(Dataset):
    def __len__(self):
        return 100000

    def __getitem__(self, i):
        x = torch.full((64, 64), float(i % 13))
        for _ in range(12):
            x = torch.tanh(x @ x.T / 64)  # CPU work per sample, as a decode would be
        return x.flatten()[:64], i % 2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", type=int, default=60)
    ap.add_argument("--report", required=True)
    args = ap.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    ds = Work()
    loader = DataLoader(ds, batch_size=16, sampler=DistributedSampler(ds, shuffle=False))
    model = DistributedDataParallel(torch.nn.Linear(64, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    samples = 0
    for i, (x, y) in enumerate(loader):
        if i == WARMUP:
            c0, m0, t0 = time.process_time(), time.thread_time(), time.perf_counter()
        if i >= WARMUP:
            samples += len(x)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if i + 1 >= args.batches:
            break
    cpu, main, wall = time.process_time() - c0, time.thread_time() - m0, time.perf_counter() - t0
    with open(args.report % rank, "w") as f:
        json.dump({"cpu_ms_per_sample": cpu * 1e3 / samples, "main_cpu_ms_per_sample": main * 1e3 / samples,
                   "samples": samples, "seconds": wall}, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
