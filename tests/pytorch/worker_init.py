"""Its own worker_init_fn, which must still run: each worker writes a file."""
import os
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

OUT = sys.argv[1]


def init(worker_id):
    with open(os.path.join(OUT, "init-%d" % os.getpid()), "w") as f:
        f.write(str(worker_id))


if __name__ == "__main__":
    loader = DataLoader(TensorDataset(torch.zeros(256, 4)), batch_size=8, worker_init_fn=init)
    for (x,) in loader:
        pass
