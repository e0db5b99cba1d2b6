"""A script with DataLoader knobs of its own and a slow CPU step.

python own_knobs.py [--seen FILE] [--step-ms MS] [--getitem-ms MS]
Its DataLoader: batch_size=12, num_workers=1, pin_memory=True,
prefetch_factor=3, persistent_workers=True. Each step sleeps --step-ms
(default 40: about ten times a batch's wait, so the run is step-bound);
--getitem-ms makes each sample that slow instead (loading-bound).
--seen FILE: writes the knobs the DataLoader iterated with (JSON)."""

import argparse
import json
import time

import torch
from torch.utils.data import DataLoader, Dataset


class Numbers(Dataset):
    def __init__(self, n, getitem_ms):
        self.n = n
        self.getitem_s = getitem_ms / 1000.0

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.getitem_s:
            time.sleep(self.getitem_s)
        return torch.full((8,), float(i)), i % 3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seen")
    ap.add_argument("--step-ms", type=float, default=40.0)
    ap.add_argument("--getitem-ms", type=float, default=0.0)
    args = ap.parse_args()
    loader = DataLoader(Numbers(600, args.getitem_ms), batch_size=12, num_workers=1, pin_memory=True,
                        prefetch_factor=3, persistent_workers=True)
    for x, y in loader:
        if args.seen:
            with open(args.seen, "w") as f:
                json.dump({"num_workers": loader.num_workers, "batch_size": loader.batch_size,
                           "pin_memory": loader.pin_memory, "prefetch_factor": loader.prefetch_factor,
                           "persistent_workers": loader.persistent_workers}, f)
            args.seen = None
        time.sleep(args.step_ms / 1000.0)  # the training step, on the CPU
        _ = x.sum() + y.sum()


if __name__ == "__main__":
    main()
