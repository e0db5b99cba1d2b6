-- Loadscope store, version 1: machines, sweeps, runs with every knob, the
-- per-batch timeline, sampled series and workers.
CREATE TABLE machine (
  id            INTEGER PRIMARY KEY,
  fingerprint   TEXT NOT NULL UNIQUE,  -- hash of what identifies the machine, equal on every store
  hostname      TEXT NOT NULL,
  os            TEXT NOT NULL,         -- "Debian GNU/Linux 12 (bookworm)", "Windows 10.0 build 19045"
  kernel        TEXT NOT NULL,
  arch          TEXT NOT NULL,
  cpu_model     TEXT NOT NULL,
  logical_cores INTEGER NOT NULL CHECK (logical_cores > 0),
  ram_bytes     INTEGER NOT NULL CHECK (ram_bytes >= 0),
  gpu           TEXT,                  -- NULL: none seen
  driver        TEXT,
  cuda          TEXT
);

CREATE TABLE sweep (
  id             INTEGER PRIMARY KEY,
  uuid           TEXT NOT NULL UNIQUE,
  machine_id     INTEGER NOT NULL REFERENCES machine (id),
  started_at     TEXT NOT NULL,        -- ISO 8601, UTC
  finished_at    TEXT,
  status         TEXT NOT NULL CHECK (status IN ('running', 'done', 'interrupted')),
  grid           TEXT NOT NULL,        -- the knobs and their lists, JSON
  configurations INTEGER NOT NULL CHECK (configurations >= 0),
  repeat         INTEGER NOT NULL CHECK (repeat >= 1)
);

CREATE TABLE run (
  id              INTEGER PRIMARY KEY,
  uuid            TEXT NOT NULL UNIQUE,
  machine_id      INTEGER NOT NULL REFERENCES machine (id),
  sweep_id        INTEGER REFERENCES sweep (id) ON DELETE SET NULL,
  runner_pid      INTEGER,             -- to tell a dead runner's run on the next open
  started_at      TEXT NOT NULL,
  finished_at     TEXT,
  status          TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed', 'interrupted')),
  error           TEXT,
  dataset         TEXT NOT NULL,
  format          TEXT NOT NULL,
  dataset_samples INTEGER,
  sample_bytes    INTEGER,
  workers         INTEGER NOT NULL CHECK (workers >= 0),
  start_method    TEXT NOT NULL CHECK (start_method IN ('fork', 'spawn')),
  batch_size      INTEGER NOT NULL CHECK (batch_size > 0),
  prefetch        INTEGER NOT NULL CHECK (prefetch > 0),
  persistent      INTEGER NOT NULL CHECK (persistent IN (0, 1)),
  shuffle         INTEGER NOT NULL CHECK (shuffle IN (0, 1)),
  drop_last       INTEGER NOT NULL CHECK (drop_last IN (0, 1)),
  in_order        INTEGER NOT NULL CHECK (in_order IN (0, 1)),
  seed            INTEGER NOT NULL,
  timeout_s       REAL NOT NULL,
  on_error        TEXT NOT NULL CHECK (on_error IN ('fail', 'skip')),
  output          TEXT NOT NULL CHECK (output IN ('f32-chw', 'u8-hwc')),
  epochs          INTEGER NOT NULL,    -- 0: as many as --batches needs
  max_batches     INTEGER NOT NULL,
  warmup          INTEGER NOT NULL,
  sink            TEXT NOT NULL CHECK (sink IN ('none', 'sim', 'cuda')),
  simulated       INTEGER NOT NULL CHECK (simulated IN (0, 1)),
  pin             TEXT CHECK (pin IN ('off', 'staging', 'arena')),
  non_blocking    INTEGER CHECK (non_blocking IN (0, 1)),
  model_ms        REAL,
  summary         TEXT                 -- the run's JSON summary, once finished
);
CREATE INDEX run_by_sweep ON run (sweep_id);
CREATE INDEX run_by_machine ON run (machine_id);

CREATE TABLE batch (
  run_id   INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
  seq      INTEGER NOT NULL,           -- delivery order, from 0
  epoch    INTEGER NOT NULL,
  batch    INTEGER NOT NULL,
  samples  INTEGER NOT NULL,
  ready_ms REAL NOT NULL,              -- since the iteration started
  wait_ms  REAL NOT NULL,              -- the data stall
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

CREATE TABLE sample (
  run_id     INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
  t_ms       REAL NOT NULL,
  processes  INTEGER,
  rss_bytes  INTEGER,                  -- sums over the runner and its workers; NULL where absent
  pss_bytes  INTEGER,
  uss_bytes  INTEGER,
  working_set_bytes INTEGER,
  private_bytes     INTEGER,
  runner_pss_bytes  INTEGER,
  cpu_ns     INTEGER
);
CREATE INDEX sample_by_run ON sample (run_id, t_ms);

CREATE TABLE worker (
  run_id     INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
  idx        INTEGER NOT NULL,
  epoch      INTEGER NOT NULL,         -- the epoch it was started for
  pid        INTEGER NOT NULL,
  startup_ms REAL,                     -- NULL: never ready
  exit       TEXT,                     -- "exited with code 0", "killed by signal 9 (SIGKILL)"
  cpu_ns     INTEGER
);
CREATE INDEX worker_by_run ON worker (run_id);
