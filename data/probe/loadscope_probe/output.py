"""The runner's pipe: JSON lines, one per event (no torch needed)."""

import json
import os
import time


def plain(value):
    """What json cannot write as it is, as a plain value: numpy's scalars
    and 0-d tensors as the number (num_workers=np.int64(1)), a
    multiprocessing context as its start method's name, anything else as
    short text. The line stays valid whatever the script passed."""
    item = getattr(value, "item", None)
    if callable(item):
        try:
            v = item()
            if isinstance(v, (bool, int, float, str)) or v is None:
                return v
        except Exception:
            pass
    method = getattr(value, "get_start_method", None)
    if callable(method):
        try:
            return str(method())
        except Exception:
            pass
    for kind in (bool, int, float):
        if isinstance(value, kind):  # subclasses json refuses (IntEnum is fine)
            return kind(value)
    return repr(value)[:200]


class Output:
    """JSON lines on the runner's pipe; nothing when there is none."""

    def __init__(self, fd, end_token=None, stamp_errors=False):
        self.fd = fd
        # The runner's proof that a "finished" line is the probe's own end
        # (taken out of the environment before the script runs).
        self.end_token = end_token
        # ranks read from files (--launcher torchrun): when each failed, as
        # the launcher cannot tell the first from the order it reads them
        self.stamp_errors = stamp_errors

    def send(self, event, **fields):
        if self.fd < 0:
            return
        fields = dict(event=event, **fields)
        if event == "finished" and self.end_token:
            fields["end"] = self.end_token
        data = (json.dumps(fields, separators=(",", ":"), default=plain) + "\n").encode()
        while data:
            data = data[os.write(self.fd, data):]

    def error(self, kind, message, tb=None):
        if self.stamp_errors:
            self.send("error", kind=kind, message=message, traceback=tb, at=time.time())
        else:
            self.send("error", kind=kind, message=message, traceback=tb)

    def finished(self, reason, state):
        # Where the builders' time went, per batch (loadscope_probe.stages).
        log = getattr(state, "stage_log", None)
        stages = log.summary() if log else None
        if stages:
            self.send("stages", **stages)
        t = os.times()
        self.send("finished", reason=reason, batches=state.seq,
                  cpu_ms=(t.user + t.system) * 1000.0)

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
