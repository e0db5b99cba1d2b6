"""Iterates a few batches, then hangs in its step."""
import time

import torch
from torch.utils.data import DataLoader, TensorDataset

if __name__ == "__main__":
    loader = DataLoader(TensorDataset(torch.zeros(64, 4)), batch_size=8)
    for i, (x,) in enumerate(loader):
        if i == 2:
            time.sleep(3600)
