"""Iterates a few batches, then hangs in its step. With
$LS_TEST_WORKER_START_S a spawned DataLoader worker (which imports the
script again, as "__mp_main__") starts that many seconds late, as on a
loaded machine."""
import os
import time

import torch
from torch.utils.data import DataLoader, TensorDataset

if __name__ == "__mp_main__" and os.environ.get("LS_TEST_WORKER_START_S"):
    time.sleep(float(os.environ["LS_TEST_WORKER_START_S"]))

if __name__ == "__main__":
    loader = DataLoader(TensorDataset(torch.zeros(64, 4)), batch_size=8)
    for i, (x,) in enumerate(loader):
        if i == 2:
            time.sleep(3600)
