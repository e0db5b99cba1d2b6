"""Where a batch's build time goes inside the script's own DataLoader.

The process that builds a batch (a worker, or the training process at
num_workers=0) runs the DataLoader's fetcher: the Dataset's __getitem__ for
each index, then collate_fn. The fetcher is timed there and one line per
batch is appended to a file of the run ("KEY GETITEM_NS COLLATE_NS SAMPLES
DONE_NS START_NS PID CPU_NS EACH_NS,..." with the process's CPU time and
each sample's __getitem__; single writes with O_APPEND, so lines of several
workers do not mix). The training process notes each batch's indices as the sampler hands
them out (the sampler's own time) and, when next() returns a batch, finds
its line by the indices' key: the hand-off is the time from the batch being
done (or next() being called, when it was done before) to next() returning
it: queue, unpickling, shared-memory rebuild.

The clock is CLOCK_MONOTONIC (time.monotonic_ns), the same in every process
of the machine. Nothing here changes what the script's loader returns."""

import collections
import os
import sys
import time
import zlib

from torch.utils.data import dataloader as _dataloader
from torch.utils.data._utils import fetch as _fetch

_measured = None        # the measured loader's dataset, in this process
_log_path = None        # where this process appends its lines
_log_fd = None          # open on it, by this process (a forked worker opens its own)
_log_fd_key = None      # (pid, path) _log_fd was opened for
_all_fetches = False    # a spawned worker of the measured loader: every fetch is ours
_in_fetch = False       # this process is building a batch of the measured loader
_open_log = None        # run --diagnose: where the files opened while fetching go
_opened = set()         # of them, the ones this process wrote already
_logging = False        # the open log's own write is not logged
_not_data = ()          # folders of Python's own files, not logged


def batch_key(index):
    """The same number for the same indices in every process (str hashes
    differ between spawned processes; crc32 of the repr does not)."""
    try:
        text = repr(list(index))
    except TypeError:
        text = repr(index)
    return zlib.crc32(text.encode("utf-8", "replace"))


class _TimedItems:
    """The dataset as the fetcher sees it while one batch is built: each
    __getitem__ timed (a dataset with __getitems__ is passed through whole,
    and its samples are not timed one by one)."""

    __slots__ = ("_dataset", "_spent")

    def __init__(self, dataset, spent):
        self._dataset = dataset
        self._spent = spent

    def __getitem__(self, index):
        t = time.monotonic_ns()
        try:
            return self._dataset[index]
        finally:
            self._spent.append(time.monotonic_ns() - t)

    def __len__(self):
        return len(self._dataset)

    def __getattr__(self, name):
        return getattr(self._dataset, name)


class _TimedIter:
    """An iterable dataset's iterator while one batch is built: each sample timed."""

    __slots__ = ("_it", "_spent")

    def __init__(self, it, spent):
        self._it = it
        self._spent = spent

    def __iter__(self):
        return self

    def __next__(self):
        t = time.monotonic_ns()
        try:
            return next(self._it)
        finally:
            self._spent.append(time.monotonic_ns() - t)


def _note_open(event, args):
    """An audit hook: the files the measured loader's fetches open (PIL's
    Image.open, open(), os.open), so `run --diagnose` knows the dataset's
    files to drop from and warm in the page cache."""
    global _logging
    if event != "open" or not _in_fetch or _logging or not args or not isinstance(args[0], (str, bytes)):
        return
    try:
        path = os.fsdecode(os.path.abspath(args[0]))
    except (TypeError, ValueError):
        return
    if path in _opened or len(_opened) >= 100000 or "\n" in path or path.startswith(_not_data):
        return
    _opened.add(path)
    _logging = True
    try:
        fd = os.open(_open_log, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, os.fsencode(path) + b"\n")
        finally:
            os.close(fd)
    except OSError:
        pass
    finally:
        _logging = False


def install_open_log(path):
    """Logs the files this process's fetches open (an audit hook cannot be
    removed; it returns at once outside a fetch). Python's own files (a
    module a decoder imports on first use) are not the dataset's."""
    global _open_log, _not_data
    if path and _open_log is None:
        _open_log = path
        roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.dirname(os.__file__))}
        roots.update(p for p in sys.path if p and ("site-packages" in p or "dist-packages" in p))
        _not_data = tuple(os.path.join(os.path.abspath(r), "") for r in roots if r)
        sys.addaudithook(_note_open)


def _append(data):
    """Appends a line to the stage log; the file stays open in this process
    (opened again in a forked child, whose inherited descriptor it closes):
    an open and a close per batch cost more than the rest of the timers."""
    global _log_fd, _log_fd_key
    key = (os.getpid(), _log_path)
    try:
        if _log_fd_key != key:
            if _log_fd is not None:
                os.close(_log_fd)
                _log_fd = None
            _log_fd = os.open(_log_path, os.O_WRONLY | os.O_APPEND)
            _log_fd_key = key
        os.write(_log_fd, data)
    except OSError:
        pass  # the run's folder is gone: the run is ending


def _timed(original):
    def fetch(self, possibly_batched_index):
        global _in_fetch
        if _log_path is None or not (_all_fetches or self.dataset is _measured):
            return original(self, possibly_batched_index)
        collate_fn = self.collate_fn
        spent = [0]
        samples = []

        def timed_collate(data):
            t = time.monotonic_ns()
            try:
                return collate_fn(data)
            finally:
                spent[0] += time.monotonic_ns() - t

        self.collate_fn = timed_collate
        iterable = hasattr(self, "dataset_iter")
        dataset = self.dataset
        if iterable:
            dataset_iter = self.dataset_iter
            self.dataset_iter = _TimedIter(dataset_iter, samples)
        else:
            self.dataset = _TimedItems(dataset, samples)
        t0 = time.monotonic_ns()
        _in_fetch = True
        try:
            out = original(self, possibly_batched_index)
        finally:
            _in_fetch = False
            done = time.monotonic_ns()
            self.collate_fn = collate_fn
            if iterable:
                self.dataset_iter = dataset_iter
            else:
                self.dataset = dataset
        try:
            n = len(possibly_batched_index)
        except TypeError:
            n = 1
        # The process's CPU time so far: a worker's busy time, as the
        # kernel counts it, beside the wall clock of its stages.
        line = "%d %d %d %d %d %d %d %d %s\n" % (
            batch_key(possibly_batched_index), done - t0 - spent[0], spent[0], n, done, t0, os.getpid(),
            time.process_time_ns(), ",".join(str(x) for x in samples) or "-")
        _append(line.encode())
        return out
    fetch._loadscope_timed = True
    return fetch


def install_fetch_timer(path, dataset=None, all_fetches=False):
    """Times the fetchers of this process (the training process before its
    workers fork, or a spawned worker from its worker_init_fn)."""
    global _log_path, _measured, _all_fetches
    _log_path = path
    if dataset is not None:
        _measured = dataset
    _all_fetches = _all_fetches or all_fetches
    for cls in (_fetch._MapDatasetFetcher, _fetch._IterableDatasetFetcher):
        if not getattr(cls.fetch, "_loadscope_timed", False):
            cls.fetch = _timed(cls.fetch)


class StageLog:
    """The training process's side: keys in the order the sampler gave
    them, the builders' lines, and the stages of each batch next() returns."""

    SAMPLES_KEPT = 200000  # per-sample times kept for p50/p95 (1.6 MB at most)

    def __init__(self, path):
        self.path = path
        with open(path, "ab"):
            pass
        self.offset = 0
        self.fd = None
        self.partial = b""
        self.sent = collections.deque()            # (key, sampler_ns), in order
        self.built = collections.defaultdict(collections.deque)  # key -> (getitem, collate, n, done)
        self.sums = collections.Counter()
        self.samples = 0
        self.batches = 0
        self.own_pid = os.getpid()
        self.last_done = {}        # worker pid -> when its last batch was done
        self.last_cpu = {}         # worker pid -> its CPU time then
        self.worker_gaps = []      # per batch after a worker's first: ms not fetching
        self.worker_busy = []      # the same batches: ms fetching (wall)
        self.worker_cpu = []       # the same batches: the worker's CPU ms since its last
        self.sample_ns = []        # __getitem__ of each sample, the first SAMPLES_KEPT
        self.pinned = 0            # batches whose pin_memory() was timed

    def watch(self, loader):
        """Notes the sampler's indices of this loader's iterators."""
        log = self
        dataset = loader.dataset
        base = _dataloader._BaseDataLoaderIter
        original = base._next_index
        if getattr(original, "_loadscope_timed", False):
            return

        def _next_index(self):
            if self._dataset is not dataset:
                return original(self)
            t = time.monotonic_ns()
            index = original(self)
            log.sent.append((batch_key(index), time.monotonic_ns() - t))
            return index
        _next_index._loadscope_timed = True
        base._next_index = _next_index

    def _read(self):
        # The file stays open: the reads go on from where the last one ended.
        chunks = []
        try:
            if self.fd is None:
                self.fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
            while True:
                chunk = os.read(self.fd, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
        except OSError:
            return
        data = b"".join(chunks)
        self.offset += len(data)
        lines = (self.partial + data).split(b"\n")
        self.partial = lines.pop()
        for line in lines:
            parts = line.split()
            if len(parts) != 9:
                continue
            try:
                key, getitem, collate, n, done, start, pid, cpu = (int(p) for p in parts[:8])
                samples = [] if parts[8] == b"-" else [int(x) for x in parts[8].split(b",")]
            except ValueError:
                continue
            self.built[key].append((getitem, collate, n, done, start, pid, cpu, samples))

    def on_batch(self, t_call, t_return):
        """The stages of the batch next() just returned (monotonic ns of the
        call and the return), in ms: sampler, getitem, collate, handoff,
        busy and idle (None before a worker's first batch), or None when
        they cannot be told."""
        if not self.sent:
            return None
        key, sampler = self.sent.popleft()
        if not self.built.get(key):
            self._read()
        got = self.built.get(key)
        if not got:
            return None
        getitem, collate, n, done, start, pid, cpu, samples = got.popleft()
        if not got:
            del self.built[key]
        handoff = max(t_return - max(done, t_call), 0)
        stages = {"sampler": sampler / 1e6, "getitem": getitem / 1e6, "collate": collate / 1e6,
                  "handoff": handoff / 1e6}
        busy = (done - start) / 1e6
        stages["busy"] = busy  # the fetch's wall time: its builder's time on it
        self.sums.update(stages)
        self.samples += n
        self.batches += 1
        idle = None
        if pid != self.own_pid:
            # A worker builds its batches in the order they are consumed:
            # the gap since its last one is time it spent not fetching
            # (waiting for indices, sending the last batch).
            if pid in self.last_done:
                idle = max(start - self.last_done[pid], 0) / 1e6
                self.worker_gaps.append(idle)
                self.worker_cpu.append((cpu - self.last_cpu[pid]) / 1e6)
                self.worker_busy.append(busy)
            self.last_done[pid] = done
            self.last_cpu[pid] = cpu
        room = self.SAMPLES_KEPT - len(self.sample_ns)
        if room > 0:
            self.sample_ns.extend(samples[:room])
        stages["idle"] = idle
        # When and where it was built, for the run's timeline: ms before
        # next() returned (not summed: kept out of self.sums)
        stages["start_ago"] = max(t_return - start, 0) / 1e6
        stages["done_ago"] = max(t_return - done, 0) / 1e6
        stages["pid"] = pid
        return stages

    def add_pin(self, ms):
        """A batch's pin_memory() time (part of its hand-off)."""
        self.sums["pin"] += ms
        self.pinned += 1

    def summary(self):
        """Per batch means over the batches seen, with __getitem__ per sample
        (mean, p50 and p95), the workers' idle time and their CPU time per
        batch; None when no batch's stages were seen."""
        if not self.batches:
            return None
        out = {k: v / self.batches for k, v in self.sums.items() if k != "pin"}
        out["pin"] = self.sums["pin"] / self.pinned if self.pinned else None
        out["getitem_per_sample"] = self.sums["getitem"] / self.samples if self.samples else None
        if self.sample_ns:
            ranked = sorted(self.sample_ns)
            out["getitem_p50"] = ranked[(len(ranked) - 1) // 2] / 1e6
            out["getitem_p95"] = ranked[min(len(ranked) - 1, (len(ranked) * 95) // 100)] / 1e6
            out["getitem_samples_timed"] = len(ranked)
        out["idle"] = None
        if self.worker_gaps:
            # Over the batches after each worker's first (the first's gap is
            # the worker's start): the CPU beside the wall time of the same.
            k = len(self.worker_gaps)
            out["idle"] = sum(self.worker_gaps) / k
            out["worker_busy"] = sum(self.worker_busy) / k
            out["worker_cpu"] = sum(self.worker_cpu) / k
        out["batches"] = self.batches
        return out
