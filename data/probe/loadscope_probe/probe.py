"""The DataLoader wrapper: knobs in, timings out."""

import functools
import inspect
import os
import sys
import tempfile
import time

import torch
import torch.utils.data

from loadscope_probe.copies import CopyTimer, PinTimer
from loadscope_probe.output import Output  # noqa: F401  (re-exported)
from loadscope_probe.stages import StageLog, install_fetch_timer, install_open_log

_Original = torch.utils.data.DataLoader

# The largest count the runner takes (LS_PROBE_MAX_COUNT in app/target/probe-line.h).
MAX_COUNT = 1 << 40


class Stop(BaseException):
    """Raised out of next() once the batches asked for were measured: a
    BaseException, so the script's `except Exception` lets it through."""


class Refused(BaseException):
    """The script undid a knob Loadscope set; the run fails with this."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


class WorkerReady:
    """worker_init_fn: notes when the worker is ready (wall clock, as the
    set's start is taken in another process), then calls the script's own."""

    def __init__(self, path, user_fn, stages_path, open_log):
        self.path = path
        self.user_fn = user_fn
        self.stages_path = stages_path
        self.open_log = open_log

    def __call__(self, worker_id):
        # A spawned worker imported torch afresh: its fetcher is timed from
        # here (a forked one has the training process's timer already).
        install_fetch_timer(self.stages_path, all_fetches=True)
        install_open_log(self.open_log)
        if self.user_fn is not None:
            self.user_fn(worker_id)
        line = "%d %d %.6f\n" % (os.getpid(), worker_id, time.time())
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)


def first_length(batch, default):
    """Samples in a batch: the first dimension of its first tensor."""
    while True:
        if isinstance(batch, torch.Tensor):
            return int(batch.shape[0]) if batch.dim() else default
        if isinstance(batch, (list, tuple)) and batch:
            batch = batch[0]
        elif isinstance(batch, dict) and batch:
            batch = next(iter(batch.values()))
        else:
            return default


class State:
    """One per script: which loader is measured and how far it got."""

    def __init__(self, config, out):
        self.config = config
        self.out = out
        self.target = int(config.get("loader", 0))
        self.max_batches = int(config.get("batches", 0))
        # run --diagnose (a): after this many batches built, the same ones
        # again and again, the loader stopped: the script's step alone.
        self.replay = int(config.get("replay", 0))
        self.rank_cpu = "rank" in config  # one of several ranks: its CPU per batch is kept
        self.kept = []
        self.built = 0
        self.measured = None      # the measured loader
        self.timed = None         # its current Timed iterator
        self.iterator = None      # its current inner iterator
        self.epoch = -1
        self.seq = 0
        self.t_iter = None        # perf_counter_ns of the first iter()
        self.pids = []
        self.set_start_wall = 0.0
        self.pending_ready = set()
        # In the runner's per-run folder, which it removes whatever happens.
        fd, self.ready_path = tempfile.mkstemp(prefix="loadscope-probe-ready-",
                                               dir=os.environ.get("LOADSCOPE_PROBE_DIR") or None)
        os.close(fd)
        fd, self.stages_path = tempfile.mkstemp(prefix="loadscope-probe-stages-",
                                                dir=os.path.dirname(self.ready_path))
        os.close(fd)
        self.stage_log = StageLog(self.stages_path)
        self.copies = None        # a CopyTimer where the script runs on CUDA
        self.pins = None          # a PinTimer there too

    def knobs(self, kwargs, notes):
        """Sets the knobs the configuration names in the DataLoader's
        arguments; a knob it leaves out stays the script's own."""
        c = self.config
        asked = {k: kwargs.get(k) for k in ("num_workers", "batch_size", "prefetch_factor",
                                            "persistent_workers", "pin_memory",
                                            "multiprocessing_context")}
        if "workers" in c:
            kwargs["num_workers"] = int(c["workers"])
        workers = int(kwargs.get("num_workers") or 0)
        if "batch_size" in c:
            if kwargs.get("batch_sampler") is not None:
                notes.append("batch_size: the script passes its own batch_sampler, which sets the "
                             "batch size; --batch-size %s not applied" % c.get("batch_size"))
            else:
                kwargs["batch_size"] = int(c["batch_size"])
        if workers > 0:
            if "prefetch" in c:
                kwargs["prefetch_factor"] = int(c["prefetch"])
            if "persistent" in c:
                kwargs["persistent_workers"] = bool(c["persistent"])
            if "start" in c:
                kwargs["multiprocessing_context"] = c["start"]
        elif "workers" in c:
            # DataLoader refuses these without workers (and they mean nothing there).
            dropped = [k for k in ("prefetch_factor", "persistent_workers", "multiprocessing_context")
                       if kwargs.pop(k, None) is not None]
            if dropped or any(k in c for k in ("prefetch", "persistent", "start")):
                notes.append("prefetch_factor, persistent_workers and the start method do not "
                             "apply with num_workers=0")
        pin = c.get("pin")
        if pin == "arena":
            kwargs["pin_memory"] = False
            notes.append("pin arena (workers writing into pinned memory) has no DataLoader "
                         "equivalent; ran with pin_memory=False")
        elif pin is not None:
            kwargs["pin_memory"] = pin == "staging"
        if kwargs.get("pin_memory") and not torch.cuda.is_available():
            notes.append("pin_memory=True has no effect here: torch.cuda.is_available() is "
                         "False, and PyTorch pins only for a CUDA device")
        if workers > 0:
            user_fn = kwargs.get("worker_init_fn")
            kwargs["worker_init_fn"] = WorkerReady(self.ready_path, user_fn, self.stages_path,
                                                   self.config.get("files_log"))
        return asked

    def built_loader(self, loader, asked, notes):
        dataset = loader.dataset
        try:
            length = len(dataset)
        except Exception:  # TypeError, an IterableDataset's NotImplementedError, its own
            length = None
        if length is not None and not 0 <= length <= MAX_COUNT:
            length = None  # len() == sys.maxsize: "unknown", not a count the store takes
        mp = loader.multiprocessing_context
        self.out.send("loader", index=self.target, num_workers=loader.num_workers,
                      batch_size=loader.batch_size, prefetch_factor=loader.prefetch_factor,
                      persistent_workers=loader.persistent_workers, pin_memory=loader.pin_memory,
                      multiprocessing_context=mp.get_start_method() if mp is not None else None,
                      dataset=type(dataset).__name__, dataset_samples=length,
                      script_asked=asked, notes=notes)

    def check_knobs(self, loader):
        """The script may set attributes after the DataLoader was built."""
        if "workers" not in self.config:
            return  # the script's own num_workers: nothing of ours to undo
        want = int(self.config["workers"])
        if loader.num_workers != want:
            raise Refused("knobs_ignored",
                          "%s ignores the injected knobs: its DataLoader iterates with "
                          "num_workers=%d, Loadscope set %d (the script changes it after building "
                          "the DataLoader)" % (os.path.basename(sys.argv[0]), loader.num_workers, want))

    def new_set(self, inner):
        workers = getattr(inner, "_workers", None) or []
        pids = [w.pid for w in workers]
        if pids and pids != self.pids:
            self.pids = pids
            self.pending_ready = set(pids)
            self.out.send("workers", epoch=max(self.epoch, 0), pids=pids)

    def read_ready(self):
        try:
            with open(self.ready_path) as f:
                lines = f.read().splitlines()
        except OSError:
            return
        for line in lines:
            parts = line.split()
            if len(parts) != 3:
                continue
            pid, worker, t = int(parts[0]), int(parts[1]), float(parts[2])
            if pid in self.pending_ready:
                self.pending_ready.discard(pid)
                self.out.send("worker_ready", pid=pid, worker=worker,
                              startup_ms=max(0.0, (t - self.set_start_wall) * 1000.0))

    def close_pending(self):
        """The script ended (a break, sys.exit()) after taking a batch: that
        batch is still recorded, its step lasting until now."""
        if self.timed is not None:
            self.timed._close_previous(time.perf_counter_ns())
        if self.copies is not None:
            self.copies.flush(True)  # the run is over: its last copies are waited for

    def stop_workers(self):
        inner = self.iterator
        self.iterator = None
        if inner is not None and hasattr(inner, "_shutdown_workers"):
            inner._shutdown_workers()
        for path in (self.ready_path, self.stages_path):
            try:
                os.unlink(path)
            except OSError:
                pass

    def missing_loader(self):
        if self.measured is not None:
            return None
        if self.built == 0:
            return ("the script ended without building a torch.utils.data.DataLoader (Loadscope "
                    "measures the DataLoader a script iterates)")
        if self.built <= self.target:
            return ("the script built %d DataLoader%s; --loader %d names none (counted from 0 in "
                    "the order they are built)" % (self.built, "" if self.built == 1 else "s", self.target))
        return "the script never iterated DataLoader %d" % self.target


class Timed:
    """The measured loader's iterator: times every next() (the batch wait)
    and the time between two next() calls (the script's step)."""

    def __init__(self, state, inner, batch_size):
        self.state = state
        self.inner = inner
        self.batch_size = batch_size or 1
        self.batch = 0
        self.last_return = None   # the previous batch: (returned at, its record)

    def __iter__(self):
        return self

    def __len__(self):
        return len(self.inner)

    def _close_previous(self, t0):
        if self.last_return is not None:
            t_ret, rec = self.last_return
            rec["compute_ms"] = (t0 - t_ret) / 1e6
            if self.state.copies is not None:
                self.state.copies.end(rec)  # sent once its copies to the device ended
            else:
                self.state.out.send("batch", **rec)
            self.last_return = None

    def __next__(self):
        s = self.state
        t0 = time.perf_counter_ns()
        m0 = time.monotonic_ns()
        self._close_previous(t0)
        if s.max_batches and s.seq >= s.max_batches:
            s.stop_workers()
            raise Stop()
        if s.replay and len(s.kept) >= s.replay:
            if s.iterator is not None:
                s.stop_workers()
            batch = s.kept[s.seq % len(s.kept)]
            t1 = time.perf_counter_ns()
            built = None
        else:
            batch = next(self.inner)
            t1 = time.perf_counter_ns()
            built = s.stage_log.on_batch(m0, time.monotonic_ns())
            if s.replay:
                s.kept.append(batch)
        if s.pending_ready:
            s.read_ready()
        if s.copies is not None:
            s.copies.begin(batch)
        pin = s.pins.take(batch) if s.pins is not None and not s.replay else None
        if pin is not None:
            s.stage_log.add_pin(pin)
        rec = {"seq": s.seq, "epoch": s.epoch, "batch": self.batch,
               "samples": first_length(batch, self.batch_size),
               "ready_ms": (t1 - s.t_iter) / 1e6, "wait_ms": (t1 - t0) / 1e6,
               "copy_ms": None, "compute_ms": None}
        if s.rank_cpu:
            # This process's CPU (all its threads) when next() returned: the
            # launcher takes a rank's CPU per batch over its measured window
            rec["proc_cpu_ms"] = time.process_time() * 1000.0
        # Where this batch's time went inside the DataLoader (None: unseen)
        for stage in ("sampler", "getitem", "collate", "handoff", "busy", "idle"):
            rec[stage + "_ms"] = built[stage] if built else None
        rec["pin_ms"] = pin
        # Its build on the ready_ms clock, and the process that built it
        if built:
            rec["build_start_ms"] = max(rec["ready_ms"] - built["start_ago"], 0)
            rec["build_end_ms"] = max(rec["ready_ms"] - built["done_ago"], 0)
            rec["worker_pid"] = built["pid"]
        self.last_return = (t1, rec)
        self.batch += 1
        s.seq += 1
        return batch


def install(config, out):
    """Measures torch's DataLoader class in place; returns the probe's state.

    The class itself is patched, not replaced: every way a script reaches it
    (torch.utils.data.DataLoader, torch.utils.data.dataloader.DataLoader, a
    name imported before the probe ran, a subclass of its own) is the same
    class, and isinstance() checks in the script keep holding."""
    state = State(config, out)
    signature = inspect.signature(_Original.__init__)
    original_init = _Original.__init__
    original_iter = _Original.__iter__
    original_get_iterator = _Original._get_iterator

    @functools.wraps(original_init)
    def __init__(self, *args, **kwargs):
        if "_loadscope_measured" in self.__dict__:
            # __init__ run again on the same object: counted once.
            return original_init(self, *args, **kwargs)
        index = state.built
        state.built += 1
        self._loadscope_measured = index == state.target
        if not self._loadscope_measured:
            return original_init(self, *args, **kwargs)
        bound = signature.bind(self, *args, **kwargs)
        params = dict(bound.arguments)
        params.pop("self")
        extra = params.pop("kwargs", {}) if "kwargs" in params else {}
        params.update(extra)
        notes = []
        asked = state.knobs(params, notes)
        original_init(self, **params)
        state.measured = self
        state.stage_log.watch(self)
        install_fetch_timer(state.stages_path, dataset=self.dataset)
        install_open_log(state.config.get("files_log"))
        state.built_loader(self, asked, notes)

    @functools.wraps(original_iter)
    def __iter__(self):
        if not self.__dict__.get("_loadscope_measured"):
            return original_iter(self)
        s = state
        s.check_knobs(self)
        s.epoch += 1
        if s.t_iter is None:
            s.t_iter = time.perf_counter_ns()
        inner = original_iter(self)
        s.iterator = inner
        s.new_set(inner)
        s.close_pending()
        s.timed = Timed(s, inner, self.batch_size)
        return s.timed

    @functools.wraps(original_get_iterator)
    def _get_iterator(self):
        # Taken just before workers start: the start of the set.
        if self.__dict__.get("_loadscope_measured"):
            state.set_start_wall = time.time()
        return original_get_iterator(self)

    _Original.__init__ = __init__
    _Original.__iter__ = __iter__
    _Original._get_iterator = _get_iterator
    cuda = torch.cuda.is_available()
    device = torch.cuda.get_device_name(0) if cuda else "cpu"
    # Tests only (with a fake NVML): report a CUDA device where there is none.
    if os.environ.get("LS_TEST_PROBE_ASSUME_CUDA") == "1" and not cuda:
        cuda, device = True, "assumed CUDA device (LS_TEST_PROBE_ASSUME_CUDA)"
    # The script's own copies of the batch to the device, timed there.
    if torch.cuda.is_available() or os.environ.get("LS_TEST_PROBE_FAKE_CUDA_COPY") == "1":
        state.copies = CopyTimer(torch, lambda rec: out.send("batch", **rec))
        state.pins = PinTimer(torch)
    out.send("probe", pid=os.getpid(), python=sys.version.split()[0], executable=sys.executable,
             torch=torch.__version__, cuda=cuda, device=device, copies_timed=state.copies is not None)
    return state
