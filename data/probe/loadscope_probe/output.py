"""The runner's pipe: JSON lines, one per event (no torch needed)."""

import json
import os


class Output:
    """JSON lines on the runner's pipe; nothing when there is none."""

    def __init__(self, fd):
        self.fd = fd

    def send(self, event, **fields):
        if self.fd < 0:
            return
        fields = dict(event=event, **fields)
        data = (json.dumps(fields, separators=(",", ":")) + "\n").encode()
        while data:
            data = data[os.write(self.fd, data):]

    def error(self, kind, message, tb=None):
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
