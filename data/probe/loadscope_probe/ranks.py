"""run --ranks N: the script's ranks started as `torchrun --standalone
--nproc-per-node N` starts them, each under the probe.

This process is the launcher (torchrun's agent): it never imports torch or
the script. It starts N copies of `python .../loadscope_probe/__main__.py SCRIPT ARGS`
with RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR=127.0.0.1,
MASTER_PORT (a free loopback port) and OMP_NUM_THREADS set, each with a pipe
of its own for the probe's lines. Rank 0's lines go on to the runner as they
come (its timeline is the run's); every rank's batches are summed up here
and sent as one "ranks" event before rank 0's "finished". The first rank to
fail ends the run: the others are killed and one "error" names the rank, its
pid, how it ended and its last lines of output. The ranks stay in the
launcher's process tree, which the runner ends whatever happens
(app/target/probe-process.h)."""

import collections
import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time

PROBE_MAIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__main__.py")

LAST_LINES = 8      # lines of a failed rank's output in the error
LINE_CUT = 400      # bytes kept of each of those lines
EXIT_WAIT_S = 10.0  # how long a rank that reported an error may take to exit


def free_port():
    """A loopback port nobody listens on now (torchrun --standalone's way)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rank_env(rank, n, port, threads, fd_text, config):
    env = dict(os.environ)
    env.update(RANK=str(rank), LOCAL_RANK=str(rank), GROUP_RANK="0", ROLE_RANK=str(rank),
               ROLE_NAME="default", WORLD_SIZE=str(n), LOCAL_WORLD_SIZE=str(n),
               ROLE_WORLD_SIZE=str(n), GROUP_WORLD_SIZE="1", MASTER_ADDR="127.0.0.1",
               MASTER_PORT=str(port), TORCHELASTIC_RESTART_COUNT="0",
               TORCHELASTIC_MAX_RESTARTS="0", TORCHELASTIC_RUN_ID="loadscope")
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    elif "OMP_NUM_THREADS" not in env and n > 1:
        env["OMP_NUM_THREADS"] = "1"  # torchrun's default with more than one process
    cfg = {k: v for k, v in config.items() if k != "ranks"}
    cfg["rank"] = rank
    env["LOADSCOPE_PROBE_CONFIG"] = json.dumps(cfg)
    env["LOADSCOPE_PROBE_FD"] = fd_text
    return env


def child_pipe():
    """(read fd, write fd, the text the child finds its end by)."""
    r, w = os.pipe()
    if os.name == "nt":
        import msvcrt
        handle = msvcrt.get_osfhandle(w)
        os.set_handle_inheritable(handle, True)
        return r, w, str(handle)
    os.set_inheritable(w, True)
    return r, w, str(w)


def start(argv, env, w):
    kw = dict(env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if os.name == "nt":
        import msvcrt
        si = subprocess.STARTUPINFO()
        si.lpAttributeList = {"handle_list": [msvcrt.get_osfhandle(w)]}
        kw["startupinfo"] = si
    else:
        kw["pass_fds"] = (w,)
    return subprocess.Popen(argv, **kw)


class Rank:
    def __init__(self, rank):
        self.rank = rank
        self.proc = None
        self.batches = []
        self.stages = {}
        self.loader = {}
        self.info = {}
        self.finished = None
        self.error = None
        self.exit = None
        self.tail = collections.deque(maxlen=LAST_LINES)


def read_channel(fd, rank, q):
    partial = b""
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b""
        if not data:
            break
        partial += data
        *lines, partial = partial.split(b"\n")
        for line in lines:
            q.put(("line", rank, line))
    os.close(fd)
    q.put(("eof", rank, None))


def read_output(stream, rank, q):
    for line in iter(stream.readline, b""):
        q.put(("out", rank, line))
    q.put(("out_eof", rank, None))


def wait_exit(proc, rank, q):
    q.put(("exit", rank, proc.wait()))


def quantile(values, q):
    v = sorted(values)
    if not v:
        return None
    i = q * (len(v) - 1)
    lo = int(i)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (i - lo)


def mean(values):
    return sum(values) / len(values) if values else None


def window_cpu(b, w):
    """The rank's own process's CPU per batch over the measured window (not
    its start, not its workers'): from the return of the last warm-up batch
    to the return of the last one, len(b) - w periods of step and wait."""
    first = b[w - 1] if w else b[0]
    periods = len(b) - w if w else len(b) - 1
    a, z = first.get("proc_cpu_ms"), b[-1].get("proc_cpu_ms")
    if periods < 1 or not isinstance(a, (int, float)) or not isinstance(z, (int, float)) or z < a:
        return None
    return (z - a) / periods


def summary(r, warmup):
    """One rank's figures, defined as the runner defines the run's
    (app/target/target-pytorch-figures.c): warm-up batches left out, the
    window from the end of the last warm-up step to the end of the last step."""
    b = r.batches
    w = warmup if len(b) > warmup else 0
    m = b[w:]
    pid = r.proc.pid if r.proc else r.info.get("pid")
    out = {"rank": r.rank, "pid": pid if isinstance(pid, int) else None, "batches": len(b),
           "measured_batches": len(m)}
    if m:
        def step(x):
            return x.get("compute_ms") or 0.0
        start = (b[w - 1]["ready_ms"] + step(b[w - 1])) if w else (b[0]["ready_ms"] - b[0]["wait_ms"])
        end = m[-1]["ready_ms"] + step(m[-1])
        samples = sum(int(x.get("samples") or 0) for x in m)
        out["samples"] = samples
        out["measured_s"] = max(0.0, (end - start) / 1000.0)
        out["throughput_sps"] = samples / out["measured_s"] if out["measured_s"] > 0 else None
        waits = [float(x["wait_ms"]) for x in m]
        steps = [float(x["compute_ms"]) for x in m if x.get("compute_ms") is not None]
        out.update(wait_ms_p50=quantile(waits, 0.5), wait_ms_p95=quantile(waits, 0.95),
                   wait_ms_mean=mean(waits), wait_ms_max=max(waits),
                   step_ms_p50=quantile(steps, 0.5), step_ms_mean=mean(steps))
        for stage in ("sampler", "getitem", "collate", "handoff", "pin", "busy", "idle"):
            vals = [float(x[stage + "_ms"]) for x in m if x.get(stage + "_ms") is not None]
            out[stage + "_ms"] = mean(vals)
        out["cpu_ms_per_batch"] = window_cpu(b, w)
    for k in ("getitem_per_sample", "worker_cpu", "worker_busy"):
        v = r.stages.get(k)
        out[k + "_ms"] = v if isinstance(v, (int, float)) else None
    for k in ("num_workers", "batch_size", "prefetch_factor"):
        v = r.loader.get(k)
        out[k] = v if isinstance(v, int) and not isinstance(v, bool) else None
    for k in ("threads", "interop_threads", "omp_num_threads"):
        v = r.info.get(k)
        out[k] = v if isinstance(v, int) and not isinstance(v, bool) else None
    cpu = (r.finished or {}).get("cpu_ms")
    out["cpu_ms"] = cpu if isinstance(cpu, (int, float)) else None
    return out


def how_it_ended(code):
    if code is None:
        return "did not end"
    if code < 0:
        return "was killed by signal %d" % -code
    return "ended with exit status %d" % code


def launch(script, args, config, out):
    if config.get("launcher") == "torchrun":
        from loadscope_probe import torchrun
        return torchrun.launch(script, args, config, out)
    n = int(config["ranks"])
    threads = int(config.get("threads") or 0)
    warmup = int(config.get("warmup") or 0)
    name = os.path.basename(script)
    port = free_port()
    q = queue.Queue()
    ranks = [Rank(i) for i in range(n)]
    for r in ranks:
        rd, w, fd_text = child_pipe()
        env = rank_env(r.rank, n, port, threads, fd_text, config)
        try:
            # by its path, not -m: -m would put the working folder first on
            # sys.path, where a torch/ could shadow torch (as the runner does)
            r.proc = start([sys.executable, PROBE_MAIN, script] + list(args), env, w)
        except OSError as e:
            out.error("rank_start", "rank %d of %s could not start: %s" % (r.rank, name, e))
            for other in ranks:
                if other.proc:
                    other.proc.kill()
            return 1
        finally:
            os.close(w)
        for fn, a in ((read_channel, rd), (read_output, r.proc.stdout), (wait_exit, r.proc)):
            threading.Thread(target=fn, args=(a, r.rank, q), daemon=True).start()

    failed = None      # the first rank that failed
    failed_at = None   # when it said so
    killed = False
    open_ends = 3 * n  # for each rank: its channel's end, its output's end, its exit
    deadline = None
    while open_ends > 0:
        try:
            kind, i, data = q.get(timeout=0.5 if failed is not None else None)
        except queue.Empty:
            kind = None
        now = time.monotonic()
        if kind in ("eof", "out_eof"):
            open_ends -= 1
        elif kind == "exit":
            open_ends -= 1
            ranks[i].exit = data
            if failed is None and data != 0 and ranks[i].finished is None:
                failed, failed_at = ranks[i], now
        elif kind == "out":
            keep_output(ranks[i], data)
        elif kind == "line":
            take_line(ranks[i], data, out)
            if ranks[i].error is not None and failed is None:
                failed, failed_at = ranks[i], now
        # The failed rank's exit status is waited for a while, then every
        # rank still running is killed (its DataLoader workers go with the
        # runner's tree) and the launcher stops waiting soon after.
        if failed is not None and not killed and (failed.exit is not None or now - failed_at > EXIT_WAIT_S):
            killed = True
            deadline = now + EXIT_WAIT_S
            for r in ranks:
                if r.exit is None:
                    r.proc.kill()
        if deadline is not None and now > deadline:
            break
    if failed is not None:
        return fail(failed, name, out)
    out.send("ranks", world_size=n, master_port=port, ranks=[summary(r, warmup) for r in ranks])
    if ranks[0].finished is not None:
        # The runner samples rank 0 itself; the process it started is this one.
        t = os.times()
        out.send("finished", **dict(ranks[0].finished, cpu_ms=(t.user + t.system) * 1000.0))
    return ranks[0].exit or 0


def keep_output(r, data):
    """A line of rank r's stdout or stderr: passed on, its last ones kept."""
    text = data.decode("utf-8", "replace").rstrip("\r\n")
    r.tail.append(text[:LINE_CUT])
    try:
        sys.stderr.write(text + "\n")
    except OSError:
        pass


def forward(out, data):
    """A line of rank 0's probe, as it came."""
    if out.fd < 0:
        return
    data = bytes(data) + b"\n"
    while data:
        data = data[os.write(out.fd, data):]


def take_line(r, data, out):
    """One line of rank r's probe: rank 0's go on to the runner, which checks
    them; the launcher keeps what it sums up of every rank's."""
    try:
        o = json.loads(data.decode("utf-8"))
        event = o.get("event") if isinstance(o, dict) else None
    except (ValueError, UnicodeDecodeError):
        o, event = None, None
    if event == "rank":
        r.info = o
        return
    if event == "finished":
        o.pop("event", None)
        r.finished = o
        return
    if event == "error":
        r.error = o
        return
    if event == "batch":
        r.batches.append(o)
    elif event == "stages":
        r.stages = o
    elif event == "loader":
        r.loader = o
    if r.rank == 0:
        forward(out, data)


def fail(r, name, out):
    """The run's error: the rank, its pid, how it ended, what it said."""
    pid = r.proc.pid if r.proc else r.info.get("pid") or 0
    what = how_it_ended(r.exit)
    said = (r.error or {}).get("message")
    tail = " | ".join(line for line in r.tail if line.strip())
    message = "rank %d of %s (pid %d)" % (r.rank, name, pid)
    if r.exit is not None or r.proc is not None:
        message += " " + what
    if said:
        message += ": %s" % said
    if tail:
        message += "; its last lines of output: %s" % tail
    out.error((r.error or {}).get("kind") or "rank_failed", message, (r.error or {}).get("traceback"))
    return 1


def in_rank(config, out, torch):
    """In each process the script runs in: --threads as torch.set_num_threads
    (OMP_NUM_THREADS is in the environment already), and under the launcher
    the rank's threads, which the launcher keeps (never sent on)."""
    threads = int(config.get("threads") or 0)
    if threads > 0:
        torch.set_num_threads(threads)
    if "rank" not in config:
        return
    omp = os.environ.get("OMP_NUM_THREADS", "")
    out.send("rank", rank=int(config["rank"]), pid=os.getpid(), threads=torch.get_num_threads(),
             interop_threads=torch.get_num_interop_threads(),
             omp_num_threads=int(omp) if omp.isdigit() else None)
