"""An HDF5 Dataset (h5py): each worker opens the file itself, rows are
uint8 H x W x 3 images (`loadscope make-dataset --format hdf5`)."""
import sys

import h5py
import torch
from torch.utils.data import DataLoader, Dataset


class H5Images(Dataset):
    def __init__(self, path):
        self.path = path
        self.file = None
        with h5py.File(path, "r") as f:
            self.n = len(f["labels"])

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.file is None:
            self.file = h5py.File(self.path, "r")
        img = torch.from_numpy(self.file["images"][i]).permute(2, 0, 1).float() / 255
        return img, int(self.file["labels"][i])


if __name__ == "__main__":
    loader = DataLoader(H5Images(sys.argv[1]), batch_size=16, shuffle=True)
    for x, y in loader:
        x.mean()
