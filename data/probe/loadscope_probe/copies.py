"""The script's own copies of a batch to a CUDA device, timed on the device.

Tensor.to() and Tensor.cuda() are wrapped: a call on one of the measured
batch's CPU tensors that returns a CUDA tensor has a CUDA event recorded
on the current stream before and after it. The events are read with
query(), never waited for, so timing adds no synchronisation: a batch's
record is held until its copies have finished on the device (records stay
in order), and sent without a copy time when more than MAX_HELD batches
are held. Only at the end of the run, when nothing is measured any more,
are the last events waited for.

The copy time of a batch is the sum over its tensors of the time between
the events around each copy: with non_blocking=True from pinned memory,
the device's own copy time; otherwise it also holds what the stream had
queued before the copy."""

import collections
import os
import time

MAX_HELD = 16          # batch records held while their copies run
MAX_TENSORS = 256      # tensors of one batch looked at


def batch_tensors(batch, torch, out, depth=0):
    """The ids of the CPU tensors in a batch (tuples, lists, dicts)."""
    if len(out) >= MAX_TENSORS or depth > 4:
        return out
    if isinstance(batch, torch.Tensor):
        if batch.device.type == "cpu":
            out.add(id(batch))
    elif isinstance(batch, (list, tuple)):
        for x in batch:
            batch_tensors(x, torch, out, depth + 1)
    elif isinstance(batch, dict):
        for x in batch.values():
            batch_tensors(x, torch, out, depth + 1)
    return out


class _FakeEvent:
    """Tests only (LS_TEST_PROBE_FAKE_CUDA_COPY): an event on the host clock."""

    def __init__(self):
        self.t = None

    def record(self):
        self.t = time.perf_counter_ns()

    def query(self):
        return True

    def synchronize(self):
        pass

    def elapsed_time(self, end):
        return (end.t - self.t) / 1e6


def first_tensor(batch, torch, depth=0):
    """The first tensor of a batch (tuples, lists, dicts), or None."""
    if isinstance(batch, torch.Tensor):
        return batch
    if depth > 4:
        return None
    items = batch.values() if isinstance(batch, dict) else batch if isinstance(batch, (list, tuple)) else ()
    for x in items:
        t = first_tensor(x, torch, depth + 1)
        if t is not None:
            return t
    return None


class PinTimer:
    """pin_memory=True: the time PyTorch's pin_memory() takes on each batch,
    in the pin-memory thread (with workers) or in next() (without). It wraps
    torch.utils.data._utils.pin_memory.pin_memory, which both look up when
    they call it; a batch is known again in the training process by its
    first pinned tensor. Part of the hand-off, which it happens in."""

    KEPT = 256  # pinned batches not yet taken by next(): the oldest are dropped

    def __init__(self, torch):
        import torch.utils.data._utils.pin_memory as module
        self.torch = torch
        self.times = collections.OrderedDict()  # id(first pinned tensor) -> ms
        self.fake = os.environ.get("LS_TEST_PROBE_FAKE_CUDA_COPY") == "1"
        original = module.pin_memory
        if getattr(original, "_loadscope_pin", False):
            return
        timer = self

        def pin_memory(data, *args, **kwargs):
            t0 = time.perf_counter_ns()
            # tests only: the stand-in device has no pinned memory
            out = data if timer.fake else original(data, *args, **kwargs)
            ms = (time.perf_counter_ns() - t0) / 1e6
            t = first_tensor(out, timer.torch)
            if t is not None:
                timer.times[id(t)] = ms
                while len(timer.times) > timer.KEPT:
                    timer.times.popitem(last=False)
            return out

        pin_memory._loadscope_pin = True
        module.pin_memory = pin_memory

    def take(self, batch):
        """The pin time of a batch next() returned, or None."""
        t = first_tensor(batch, self.torch)
        return self.times.pop(id(t), None) if t is not None else None


class CopyTimer:
    """Times a batch's copies to the device; holds its record until they end."""

    def __init__(self, torch, send):
        self.torch = torch
        self.send = send
        self.ids = set()          # the measured batch's CPU tensors
        self.events = []          # (start, end) of its copies so far
        self.held = collections.deque()
        self.fake = os.environ.get("LS_TEST_PROBE_FAKE_CUDA_COPY") == "1"
        self._install()

    def _event(self):
        if self.fake:
            return _FakeEvent()
        return self.torch.cuda.Event(enable_timing=True)

    def _install(self):
        timer = self
        tensor = self.torch.Tensor
        for name in ("to", "cuda"):
            original = getattr(tensor, name)
            if getattr(original, "_loadscope_copy", False):
                continue

            def wrapped(t, *args, _original=original, **kwargs):
                if id(t) not in timer.ids:
                    return _original(t, *args, **kwargs)
                start = timer._event()
                start.record()
                if timer.fake:
                    # a stand-in device copy: a new tensor, as .to() makes
                    out = t.clone()
                else:
                    out = _original(t, *args, **kwargs)
                    if out is t or out.device.type != "cuda":
                        return out
                end = timer._event()
                end.record()
                timer.events.append((start, end))
                return out

            wrapped._loadscope_copy = True
            setattr(tensor, name, wrapped)

    def begin(self, batch):
        """next() returned batch: its copies are looked for from now."""
        self.ids = batch_tensors(batch, self.torch, set())
        self.events = []

    def end(self, rec):
        """The batch's step ended (the next next() call): its record waits
        for its copies."""
        self.held.append((rec, self.events))
        self.ids = set()
        self.events = []
        self.flush(False)

    def flush(self, wait):
        """Sends the records whose copies ended, in order; wait: at the end
        of the run, wait for the last ones."""
        while self.held:
            rec, events = self.held[0]
            if events and not all(e.query() for _, e in events):
                if wait:
                    for _, e in events:
                        e.synchronize()
                elif len(self.held) > MAX_HELD:
                    events = []  # held too long: sent without a copy time
                else:
                    return
            if events:
                rec["copy_ms"] = sum(s.elapsed_time(e) for s, e in events)
            self.held.popleft()
            self.send(rec)
