-- Version 10: the Slurm sweeps this store submitted (or collected first,
-- for a run folder submitted elsewhere), with what the submitting side
-- knows of them: the run folder, the job ids and the task numbers each
-- holds ("123:0-3 124:4-7"), the configurations' labels (their knobs, one
-- a line), the counts. A run folder's manifest sits on a shared file system
-- and is untrusted: collect checks it against this row before it merges
-- anything, and refuses a manifest naming a sweep of this store that no
-- row here says was submitted to Slurm. Not exported: it is this store's
-- own memory, like a sweep's owner.
CREATE TABLE slurm_submission (
  sweep_uuid TEXT PRIMARY KEY,
  run_dir TEXT NOT NULL,
  jobs TEXT NOT NULL,
  labels TEXT NOT NULL,
  configurations INTEGER NOT NULL,
  tasks INTEGER NOT NULL,
  recorded_at TEXT NOT NULL
);
