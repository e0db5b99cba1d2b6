"""Builds a DataLoader and raises in the middle of its loop."""
import torch
from torch.utils.data import DataLoader, TensorDataset

if __name__ == "__main__":
    loader = DataLoader(TensorDataset(torch.zeros(64, 4)), batch_size=8)
    for i, (x,) in enumerate(loader):
        if i == 3:
            raise ValueError("bad batch %d" % i)
