"""Sets num_workers itself after building the DataLoader."""
import torch
from torch.utils.data import DataLoader, TensorDataset

if __name__ == "__main__":
    loader = DataLoader(TensorDataset(torch.zeros(64, 4)), batch_size=8)
    loader.num_workers = 0
    for (x,) in loader:
        pass
