"""One DataLoader, built the way a given script builds it.

python built_every_way.py WAY [--seen FILE] [--batches N]
WAY:
  module      `from torch.utils.data.dataloader import DataLoader`
  subclass    a DataLoader subclass defined here, with its own __init__
  factory     the loader built inside a function and a class's method
  iterable    an IterableDataset, sharded across its workers
  exit        the loop ends with sys.exit() (status 0) mid-epoch
Each loader asks num_workers=0 and batch_size=6; --seen FILE writes what
the loader iterated with (JSON), so a test can see the knobs Loadscope set."""

import argparse
import json
import math
import sys
import time

import torch
import torch.utils.data


class Squares(torch.utils.data.Dataset):
    def __len__(self):
        return 240

    def __getitem__(self, i):
        time.sleep(0.001)  # a measurable __getitem__
        return torch.full((4,), float(i * i))


class Stream(torch.utils.data.IterableDataset):
    """240 numbers, each worker yielding its own share."""

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        n, share, first = 240, 240, 0
        if info is not None:
            share = math.ceil(n / info.num_workers)
            first = info.id * share
        for i in range(first, min(first + share, n)):
            time.sleep(0.001)
            yield torch.full((4,), float(i))


def loader_module():
    from torch.utils.data.dataloader import DataLoader
    return DataLoader(Squares(), batch_size=6, num_workers=0)


def loader_subclass():
    class CountingLoader(torch.utils.data.DataLoader):
        def __init__(self, dataset, **kwargs):
            self.count = 0
            super().__init__(dataset, **kwargs)

    return CountingLoader(Squares(), batch_size=6, num_workers=0)


class Trainer:
    def __init__(self):
        self.loader = self.make_loader()

    def make_loader(self):
        return build(Squares())


def build(dataset):
    from torch.utils.data import DataLoader as DL
    return DL(dataset, batch_size=6, num_workers=0)


def loader_factory():
    return Trainer().loader


def loader_iterable():
    return torch.utils.data.DataLoader(Stream(), batch_size=6, num_workers=0)


WAYS = {"module": loader_module, "subclass": loader_subclass, "factory": loader_factory,
        "iterable": loader_iterable, "exit": loader_module}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("way", choices=sorted(WAYS))
    ap.add_argument("--seen")
    ap.add_argument("--batches", type=int, default=0, help="stop after N batches (exit way)")
    args = ap.parse_args()
    loader = WAYS[args.way]()
    for n, x in enumerate(loader):
        if args.seen:
            with open(args.seen, "w") as f:
                json.dump({"num_workers": loader.num_workers, "batch_size": loader.batch_size,
                           "class": type(loader).__name__}, f)
            args.seen = None
        _ = x.sum()
        if args.way == "exit" and n + 1 == args.batches:
            sys.exit()
    sys.exit(0)


if __name__ == "__main__":
    main()
