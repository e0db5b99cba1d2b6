"""No __main__ guard: spawned workers would run it again."""
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.zeros(64, 4)), batch_size=8)
for (x,) in loader:
    pass
