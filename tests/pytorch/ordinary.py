"""Scripts that run fine under plain python and must not be refused:
tests/test-hostile-probe.c runs `ordinary.py MODE MARKER` (MARKER only
marks the tree's processes) with no knobs given, so the script's own apply.

  np-int64      num_workers=np.int64(1)
  mp-context    multiprocessing_context=mp.get_context("fork"), 1 worker
  huge-len      a dataset whose len() is sys.maxsize
  big-batch     batch_size=70000
  many-workers  num_workers=64
  iterable-len  an IterableDataset whose __len__ raises NotImplementedError
"""
import multiprocessing as mp
import sys

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, IterableDataset, TensorDataset


class Huge(Dataset):
    def __len__(self):
        return sys.maxsize

    def __getitem__(self, i):
        return torch.zeros(4)


class Stream(IterableDataset):
    def __iter__(self):
        for _ in range(64):
            yield torch.zeros(4)

    def __len__(self):
        raise NotImplementedError("a stream has no length")


def loader(mode):
    small = TensorDataset(torch.zeros(64, 4))
    if mode == "np-int64":
        return DataLoader(small, batch_size=8, num_workers=np.int64(1))
    if mode == "mp-context":
        return DataLoader(small, batch_size=8, num_workers=1, multiprocessing_context=mp.get_context("fork"))
    if mode == "huge-len":
        return DataLoader(Huge(), batch_size=8)
    if mode == "big-batch":
        return DataLoader(TensorDataset(torch.zeros(280000, 1)), batch_size=70000)
    if mode == "many-workers":
        return DataLoader(TensorDataset(torch.zeros(512, 1)), batch_size=4, num_workers=64)
    if mode == "iterable-len":
        return DataLoader(Stream(), batch_size=8)
    raise SystemExit("unknown mode %s" % mode)


if __name__ == "__main__":
    for i, batch in enumerate(loader(sys.argv[1])):
        if i >= 20:
            break
