"""A script that copies each batch to the GPU itself, as training scripts
do: pin_memory=True, x.to(device, non_blocking=True), then a small step on
the device.

python cuda_copy.py [--step-ms MS]
On a machine without CUDA the device is the CPU (no copy to time), except
under the probe's test switch LS_TEST_PROBE_FAKE_CUDA_COPY=1, where the
probe stands in for the copy and for pin_memory() (tests/test-script-answer.c;
there the loader pins in next(), with 0 workers: PyTorch's pin-memory
thread needs a real device)."""

import argparse
import os
import time

import torch
from torch.utils.data import DataLoader, Dataset


class Tiles(Dataset):
    def __len__(self):
        return 512

    def __getitem__(self, i):
        return torch.full((3, 32, 32), float(i)), i % 10


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--step-ms", type=float, default=5.0)
    args = ap.parse_args()
    cuda = torch.cuda.is_available()
    fake = os.environ.get("LS_TEST_PROBE_FAKE_CUDA_COPY") == "1"
    device = "cuda" if cuda or fake else "cpu"
    weight = torch.randn(3 * 32 * 32, 10, device="cuda" if cuda else "cpu")
    if fake and not cuda:
        loader = DataLoader(Tiles(), batch_size=16, num_workers=0, pin_memory=True, pin_memory_device="cuda")
    else:
        loader = DataLoader(Tiles(), batch_size=16, num_workers=1, pin_memory=cuda)
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        if cuda:
            (x.flatten(1) @ weight).sum().item()  # the step waits for the device
        time.sleep(args.step_ms / 1000.0)


if __name__ == "__main__":
    main()
