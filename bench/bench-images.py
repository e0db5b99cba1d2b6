#!/usr/bin/python3
"""Real-data benchmark: Loadscope against PyTorch's DataLoader on the same
JPEG folder with the same transforms, measured side by side in one run.

  /usr/bin/python3 bench/bench-images.py [--loadscope build/app/loadscope]
                                          [--data DIR] [--count 2000] [--no-pytorch]

Prints one table (img/s, CPU ms per sample, peak PSS of the process tree)
and the ratios the goals are stated in:
  * Loadscope, 2 workers / (2 x Loadscope's single-thread rate, same run)
  * Loadscope, 2 workers / PyTorch DataLoader, 2 workers
HDF5 (raw arrays and encoded JPEG rows) made from the same generator are in
the same table. PyTorch comes from Debian (bench/setup-pytorch.sh).

Definitions match Loadscope's (DESIGN.md "What is measured"): throughput over
the batches after the warm-up (first 2 batches left out), CPU = user+system
of the whole process tree / samples, memory = peak of the summed PSS of the
process tree sampled every 100 ms.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)

PYTORCH_RUN = textwrap.dedent(r"""
    import json, os, resource, sys, threading, time
    import torch
    from torch.utils.data import DataLoader
    from torchvision import datasets, transforms

    root, workers, start, persistent, epochs, warmup = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == "1", int(sys.argv[5]), int(sys.argv[6])
    torch.manual_seed(0)
    tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor(),
                             transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    ds = datasets.ImageFolder(root, tf)
    kw = dict(multiprocessing_context=start, persistent_workers=persistent) if workers else {}
    dl = DataLoader(ds, batch_size=64, shuffle=True, num_workers=workers, **kw)

    def tree(pid):
        out = [pid]
        try:
            for t in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{t}/children") as f:
                    for c in f.read().split():
                        out += tree(int(c))
        except OSError:
            pass
        return out

    def pss(pid):
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0

    peak = [0]
    stop = threading.Event()
    def sampler():
        while not stop.is_set():
            peak[0] = max(peak[0], sum(pss(p) for p in tree(os.getpid())))
            time.sleep(0.1)
    threading.Thread(target=sampler, daemon=True).start()

    t_start = time.perf_counter()
    n = 0
    samples = measured = 0
    for e in range(epochs):
        for x, y in dl:
            t = time.perf_counter()
            if n == warmup - 1:
                window = t
            if n >= warmup:
                measured += x.shape[0]
            samples += x.shape[0]
            n += 1
            last = t
    del dl
    stop.set()
    ru_s, ru_c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = ru_s.ru_utime + ru_s.ru_stime + ru_c.ru_utime + ru_c.ru_stime
    print(json.dumps(dict(throughput_sps=measured / (last - window), samples=samples,
                          cpu_ms_per_sample=cpu * 1000 / samples, pss_peak_bytes=peak[0])))
""")


def loadscope(exe, dataset, *args):
    cmd = [exe, "run", "--dataset", dataset, "--json", "--sink", "none", *args]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"bench-images: {' '.join(cmd)} failed: {p.stderr.strip()}")
    d = json.loads(p.stdout)
    return dict(throughput_sps=d["throughput_sps"], cpu_ms_per_sample=d["cpu_ms_per_sample"],
                pss_peak_bytes=d["memory"]["pss_peak_bytes"])


def two_at_once(exe, dataset):
    """Two independent in-process loaders on the two cores at the same time:
    what the machine gives two threads of this work, with no pool at all."""
    cmd = [exe, "run", "--dataset", dataset, "--json", "--sink", "none", "--workers", "0"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    return sum(json.loads(p.communicate()[0])["throughput_sps"] for p in procs)


def pytorch(dataset, workers, start="fork", persistent=False, epochs=2):
    p = subprocess.run([sys.executable, "-c", PYTORCH_RUN, dataset, str(workers), start, "1" if persistent else "0",
                        str(epochs), "2"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"bench-images: the PyTorch run failed: {p.stderr.strip()[-800:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--loadscope", default=os.path.join(TOP, "build", "app", "loadscope"))
    ap.add_argument("--data", help="a jpeg-dir folder to use (default: generate one)")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--no-pytorch", action="store_true")
    a = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="ls-bench-")
    data = a.data or os.path.join(tmp, "jpegs")
    if not a.data:
        subprocess.run([a.loadscope, "make-dataset", "--format", "jpeg-dir", "--count", str(a.count), data], check=True)
    h5raw, h5jpeg = os.path.join(tmp, "raw.h5"), os.path.join(tmp, "jpeg.h5")
    subprocess.run([a.loadscope, "make-dataset", "--format", "hdf5", "--count", str(a.count), "--size", "500x375",
                    h5raw], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([a.loadscope, "make-dataset", "--format", "hdf5-jpeg", "--count", str(a.count), h5jpeg], check=True,
                   stdout=subprocess.DEVNULL)
    # Warm the page cache so every loader reads from memory.
    for d in (data,):
        for r, _, fs in os.walk(d):
            for f in fs:
                with open(os.path.join(r, f), "rb") as fh:
                    fh.read()

    rows = []
    single = loadscope(a.loadscope, data, "--workers", "0", "--epochs", "1")
    pair = two_at_once(a.loadscope, data)
    rows.append(("Loadscope jpeg-dir, in-process (single thread)", single))
    ls2 = loadscope(a.loadscope, data, "--workers", "2", "--epochs", "2")
    rows.append(("Loadscope jpeg-dir, 2 workers fork, f32-chw", ls2))
    ls2p = loadscope(a.loadscope, data, "--workers", "2", "--epochs", "2", "--persistent", "on")
    rows.append(("Loadscope jpeg-dir, 2 workers fork, persistent", ls2p))
    rows.append(("Loadscope jpeg-dir, 2 workers spawn", loadscope(a.loadscope, data, "--workers", "2", "--epochs", "2",
                                                                   "--start", "spawn")))
    rows.append(("Loadscope jpeg-dir, 2 workers fork, u8-hwc", loadscope(a.loadscope, data, "--workers", "2",
                                                                          "--epochs", "2", "--output", "u8-hwc")))
    rows.append(("Loadscope hdf5 raw 500x375, 2 workers", loadscope(a.loadscope, h5raw, "--workers", "2",
                                                                     "--epochs", "2")))
    rows.append(("Loadscope hdf5 jpeg rows, 2 workers", loadscope(a.loadscope, h5jpeg, "--workers", "2",
                                                                   "--epochs", "2")))
    torch2 = None
    if not a.no_pytorch:
        torch2 = pytorch(data, 2)
        rows.append(("PyTorch 1.13 DataLoader, 2 workers fork", torch2))
        rows.append(("PyTorch 1.13 DataLoader, 2 workers spawn", pytorch(data, 2, "spawn")))

    print(f"\n{'configuration':52} {'img/s':>8} {'CPU ms/img':>11} {'peak PSS MB':>12}")
    for name, r in rows:
        print(f"{name:52} {r['throughput_sps']:8.0f} {r['cpu_ms_per_sample']:11.2f} {r['pss_peak_bytes'] / 1e6:12.1f}")
    print()
    print(f"Loadscope 2 workers / (2 x single thread):   {ls2['throughput_sps'] / (2 * single['throughput_sps']):.3f}"
          "   (goal >= 0.95)")
    print(f"  the same, persistent workers:              {ls2p['throughput_sps'] / (2 * single['throughput_sps']):.3f}")
    print(f"Two single-thread loaders at once / (2 x one alone): {pair / (2 * single['throughput_sps']):.3f}"
          "   (what this machine's two cores scale by, no pool involved)")
    print(f"Loadscope 2 workers / two single-thread loaders at once: {ls2['throughput_sps'] / pair:.3f}")
    if torch2:
        print(f"Loadscope 2 workers / PyTorch 2 workers:     {ls2['throughput_sps'] / torch2['throughput_sps']:.2f}"
              "    (goal >= 2.2)")
        print(f"PyTorch CPU per image / Loadscope's:         {torch2['cpu_ms_per_sample'] / ls2['cpu_ms_per_sample']:.2f}")
        print(f"PyTorch peak PSS / Loadscope's (f32-chw):    {torch2['pss_peak_bytes'] / ls2['pss_peak_bytes']:.2f}")
    print(f"Loadscope 2 workers CPU per image:           {ls2['cpu_ms_per_sample']:.2f} ms   (goal <= 1.6)")
    print(f"dataset: {data} ({a.count} images); HDF5 files in {tmp}")


if __name__ == "__main__":
    main()
