"""The ImageFolder pipeline of tests/pytorch/imagefolder.py, timed by
itself, for bench-probe.py: the same script runs with and without the
probe, and each run says its own throughput.

python bench-probe-workload.py DATASET --workers W --batch-size B --batches K
python bench-probe-workload.py --synthetic --batches K: tiny in-memory
tensors and no step, so a batch costs a few microseconds and what the
probe adds to each next() shows in absolute terms.
Prints one JSON line: samples, seconds and this process's CPU seconds
from the first batch's arrival to the K-th batch's step (worker start-up
left out, as a run's figures leave their warm-up out). The CPU time is
where the probe's own cost lands (it runs in the script's process) and,
unlike the wall time, hardly moves when other processes load the
machine."""

import argparse
import json
import time

import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dataset", nargs="?")
    ap.add_argument("--synthetic", action="store_true")
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--batches", type=int, default=40)
    args = ap.parse_args()
    torch.manual_seed(0)
    tf = transforms.Compose([
        transforms.RandomResizedCrop(64),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
    ])
    if args.synthetic:
        ds = torch.utils.data.TensorDataset(torch.zeros(4096, 3, 8, 8), torch.zeros(4096, dtype=torch.long))
    else:
        ds = datasets.ImageFolder(args.dataset, transform=tf)
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True, num_workers=args.workers,
                        persistent_workers=args.workers > 0)
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 64 * 64, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    done, samples, t0, c0 = 0, 0, None, None
    while done < args.batches:
        for x, y in loader:
            if t0 is None:
                t0 = time.perf_counter()  # the first batch is the warm-up
                c0 = time.process_time()
            else:
                samples += int(x.shape[0])
            if not args.synthetic:
                loss = torch.nn.functional.cross_entropy(model(x), y % 10)
                opt.zero_grad()
                loss.backward()
                opt.step()
            done += 1
            if done >= args.batches:
                break
    print(json.dumps({"samples": samples, "seconds": time.perf_counter() - t0,
                      "cpu_seconds": time.process_time() - c0}), flush=True)


if __name__ == "__main__":
    main()
