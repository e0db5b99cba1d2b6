"""Loadscope's probe: measures an unmodified PyTorch script's DataLoader.

`loadscope run --target pytorch --script train.py` starts
`python -m loadscope_probe train.py ARGS` with this folder on PYTHONPATH,
the configuration in $LOADSCOPE_PROBE_CONFIG (JSON) and a pipe on the file
descriptor $LOADSCOPE_PROBE_FD (on Windows, an inherited HANDLE). The probe imports torch, replaces
torch.utils.data.DataLoader with a subclass that gives the measured loader
(the first one the script iterates, or the one named by "loader") the
configuration's knobs, then runs the script as __main__ with runpy.

What it writes to the pipe, one JSON object per line (the runner in
app/target/ reads them; batch and workers lines have the fields of
`loadscope run --events`):

  probe        versions, pid, whether CUDA is there
  loader       the measured loader's knobs as it was built, knobs that could
               not apply and why, what the script asked for
  workers      {"epoch", "pids"}: a new worker set
  worker_ready {"pid", "worker", "startup_ms"}
  batch        {"seq", "epoch", "batch", "samples", "ready_ms", "wait_ms",
                "compute_ms" (the script's step: the time until its next
                next() call), "copy_ms": null, and inside the DataLoader
                "sampler_ms", "getitem_ms", "collate_ms", "handoff_ms",
                "pin_ms" (CUDA, part of the hand-off), "busy_ms",
                "idle_ms" (null: not seen), and where it was built:
                "worker_pid", "build_start_ms", "build_end_ms" (absent:
                not seen)}
  stages       the run's means of those (loadscope_probe.stages)
  finished     {"reason", "batches", "cpu_ms", "end"}: ("end": the token the
               runner put in $LOADSCOPE_PROBE_TOKEN, which the probe takes out of
               its environment before the script runs; a "finished" without it is
               not the probe's, and the run fails) the batches asked for were measured,
               or the script ended
  error        {"message", "kind", "traceback"}
"""
