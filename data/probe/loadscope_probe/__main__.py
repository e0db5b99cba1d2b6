"""python -m loadscope_probe SCRIPT [ARGS...]: run SCRIPT as __main__ with
its DataLoader measured (see __init__.py for the protocol)."""

import ast
import json
import os
import runpy
import sys
import traceback

from loadscope_probe.output import Output


def has_main_guard(path):
    """True when the script's top level holds `if __name__ == "__main__":`."""
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read(), filename=path)
    except (OSError, SyntaxError):
        return True  # let Python itself report it
    for node in tree.body:
        if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
            continue
        names = [node.test.left] + list(node.test.comparators)
        texts = set()
        for n in names:
            if isinstance(n, ast.Name):
                texts.add(n.id)
            elif isinstance(n, ast.Constant) and isinstance(n.value, str):
                texts.add(n.value)
        if {"__name__", "__main__"} <= texts:
            return True
    return False


def where(tb, script):
    """The script's innermost line in a traceback: "train.py:12"."""
    last = None
    for frame in traceback.extract_tb(tb):
        if os.path.abspath(frame.filename) == script:
            last = frame
    if last is None:
        return ""
    return " (at %s:%d)" % (os.path.basename(script), last.lineno)


def channel_fd(value):
    """The runner's pipe as a file descriptor: on Windows the variable holds
    an inherited HANDLE, which the C runtime wraps in one."""
    try:
        handle = int(value)
    except ValueError:
        return -1
    if handle < 0 or os.name != "nt":
        return handle
    import msvcrt
    return msvcrt.open_osfhandle(handle, os.O_WRONLY)


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: python -m loadscope_probe SCRIPT [ARGS...]\n")
        return 2
    config = json.loads(os.environ.get("LOADSCOPE_PROBE_CONFIG", "{}"))
    # Gone from the environment before the script runs: a "finished" line
    # the script writes itself cannot carry it.
    end_token = os.environ.pop("LOADSCOPE_PROBE_TOKEN", None)
    if config.get("ranks_folder"):
        # a rank that --launcher torchrun started: its lines go to a file the
        # launcher follows (torchrun passes no pipe on to its ranks)
        config["rank"] = int(os.environ.get("RANK", "0"))
        path = os.path.join(config["ranks_folder"], "rank-%d.jsonl" % config["rank"])
        out = Output(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), stamp_errors=True)
    else:
        out = Output(channel_fd(os.environ.get("LOADSCOPE_PROBE_FD", "-1")), end_token)
    script = os.path.abspath(sys.argv[1])
    name = os.path.basename(script)
    if config.get("ranks"):
        # run --ranks N: this process starts the ranks (loadscope_probe.ranks)
        from loadscope_probe import ranks
        status = ranks.launch(script, sys.argv[2:], config, out)
        out.close()
        return status

    try:
        import torch  # noqa: F401  (the script would import it anyway)
    except Exception as e:  # ImportError, or a broken install's own error
        out.error("no_torch", "%s cannot import torch: %s: %s" % (sys.executable, type(e).__name__, e))
        return 3
    from loadscope_probe import probe
    from loadscope_probe.ranks import in_rank

    in_rank(config, out, torch)

    if config.get("start") == "spawn" and config.get("workers", 0) > 0 and not has_main_guard(script):
        out.error("spawn_guard",
                  "--start spawn: %s has no `if __name__ == \"__main__\":` guard; spawned DataLoader "
                  "workers import the script again and would run its top level (training included) "
                  "in every worker. Put the training code under the guard, or use --start fork." % name)
        return 4

    state = probe.install(config, out)
    from loadscope_probe import spawned
    spawned.install(config, out, state)
    sys.argv = [script] + sys.argv[2:]
    sys.path[0] = os.path.dirname(script)
    reason = "script_ended"
    status = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except probe.Stop:
        reason = "batches"
    except probe.Refused as e:
        out.error(e.kind, str(e))
        status = 5
    except SystemExit as e:
        code = e.code
        if code not in (None, 0):
            text = code if isinstance(code, str) else "status %s" % code
            out.error("script_exit", "%s exited with %s" % (name, text))
            status = code if isinstance(code, int) and 0 < code < 256 else 1
    except BaseException as e:  # the script's own failure, KeyboardInterrupt included
        tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
        out.error("script_raised", "%s raised %s: %s%s" % (name, type(e).__name__, e,
                                                          where(e.__traceback__, script)), tb)
        status = 1
    state.close_pending()
    state.stop_workers()
    if status == 0:
        problem = state.missing_loader()
        if problem:
            out.error("no_loader", problem)
            status = 6
        else:
            out.finished(reason, state)
    out.close()
    return status


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # Worker sets a script kept alive (persistent workers in globals) would
    # otherwise be shut down one by one at exit; the figures are written.
    os._exit(code)
