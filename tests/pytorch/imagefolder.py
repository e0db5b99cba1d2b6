"""ImageFolder + torchvision transforms over a JPEG folder, a toy step.

python imagefolder.py DATASET [--seen FILE] [--epochs E]
--seen FILE: writes the DataLoader's knobs as the script saw them (JSON),
for tests that check Loadscope's knobs reached it; a folder: one file per
run in it (seen-<pid>.json), for sweeps."""

import argparse
import json
import os

import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dataset")
    ap.add_argument("--seen")
    ap.add_argument("--epochs", type=int, default=1)
    args = ap.parse_args()
    tf = transforms.Compose([
        transforms.RandomResizedCrop(64),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
    ])
    ds = datasets.ImageFolder(args.dataset, transform=tf)
    loader = DataLoader(ds, batch_size=16, shuffle=True, num_workers=0)
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 64 * 64, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(args.epochs):
        for x, y in loader:
            if args.seen:
                mp = loader.multiprocessing_context
                seen = {"num_workers": loader.num_workers, "batch_size": loader.batch_size,
                        "pin_memory": loader.pin_memory,
                        "prefetch_factor": loader.prefetch_factor if loader.num_workers else None,
                        "persistent_workers": loader.persistent_workers,
                        "start": mp.get_start_method() if mp is not None else None,
                        "pid": os.getpid()}
                path = args.seen
                if os.path.isdir(path):
                    path = os.path.join(path, "seen-%d.json" % os.getpid())
                with open(path, "w") as f:
                    json.dump(seen, f)
                args.seen = None
            loss = torch.nn.functional.cross_entropy(model(x), y % 10)
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
