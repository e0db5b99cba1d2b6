"""A DDP training script (gloo on the CPU), started the way torchrun starts one
rank: RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT in the environment.

python ddp.py [--slow-rank R] [--getitem-ms MS] [--step-ms MS] [--raise-rank R]
Each rank has its own DataLoader over a DistributedSampler (batch_size=8,
num_workers=0 unless Loadscope sets it) and a DistributedDataParallel model,
so every step's backward waits for the other ranks (the gradient allreduce).
--slow-rank R: rank R's __getitem__ sleeps --getitem-ms (default 8) per sample,
  the others' 0.5 ms: rank R's loader limits the node.
--raise-rank R: rank R raises in its third step.
--kill-rank R: rank R says so on stderr and is killed (SIGKILL) in its third step."""

import argparse
import os
import signal
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class Numbers(Dataset):
    def __init__(self, n, getitem_ms):
        self.n = n
        self.getitem_s = getitem_ms / 1000.0

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep(self.getitem_s)
        return torch.full((16,), float(i % 7)), i % 2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--slow-rank", type=int, default=-1)
    ap.add_argument("--getitem-ms", type=float, default=8.0)
    ap.add_argument("--step-ms", type=float, default=2.0)
    ap.add_argument("--raise-rank", type=int, default=-1)
    ap.add_argument("--kill-rank", type=int, default=-1)
    ap.add_argument("--tag", help="ignored: a test finds the ranks and workers by it")
    args = ap.parse_args()
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    getitem_ms = args.getitem_ms if rank == args.slow_rank else 0.5
    dataset = Numbers(4000, getitem_ms)
    sampler = DistributedSampler(dataset, shuffle=False)
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    model = DistributedDataParallel(torch.nn.Linear(16, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step, (x, y) in enumerate(loader):
        if rank == args.raise_rank and step == 2:
            raise RuntimeError("rank %d gave up at step %d" % (rank, step))
        if rank == args.kill_rank and step == 2:
            sys.stderr.write("rank %d: out of memory, killing myself\n" % rank)
            sys.stderr.flush()
            os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()  # waits here for the other ranks' gradients
        opt.step()
        time.sleep(args.step_ms / 1000.0)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
