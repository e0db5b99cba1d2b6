"""The DDP script of ddp.py, its ranks started by the script itself with
torch.multiprocessing.spawn (as many multi-GPU examples do).

python ddp_spawn.py [--ranks N] [--slow-rank R] [--getitem-ms MS]"""

import argparse
import os
import socket
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
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


def train(rank, world_size, slow_rank, getitem_ms):
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    dataset = Numbers(4000, getitem_ms if rank == slow_rank else 0.5)
    loader = DataLoader(dataset, batch_size=8, sampler=DistributedSampler(dataset, shuffle=False))
    model = DistributedDataParallel(torch.nn.Linear(16, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        time.sleep(0.002)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--slow-rank", type=int, default=-1)
    ap.add_argument("--getitem-ms", type=float, default=8.0)
    args = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    mp.spawn(train, args=(args.ranks, args.slow_rank, args.getitem_ms), nprocs=args.ranks)


if __name__ == "__main__":
    main()
