-- Version 3: a sweep can fail (a runner refused its input, so every
-- configuration would), and says why. SQLite cannot change a CHECK in
-- place: the table is rebuilt (migrations run with foreign keys off, so
-- runs keep their sweep_id).
CREATE TABLE sweep_v3 (
  id             INTEGER PRIMARY KEY,
  uuid           TEXT NOT NULL UNIQUE,
  machine_id     INTEGER NOT NULL REFERENCES machine (id),
  started_at     TEXT NOT NULL,        -- ISO 8601, UTC
  finished_at    TEXT,
  status         TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed', 'interrupted')),
  grid           TEXT NOT NULL,        -- the knobs and their lists, JSON
  configurations INTEGER NOT NULL CHECK (configurations >= 0),
  repeat         INTEGER NOT NULL CHECK (repeat >= 1),
  error          TEXT                  -- why it failed; NULL otherwise
);
INSERT INTO sweep_v3 (id, uuid, machine_id, started_at, finished_at, status, grid, configurations, repeat)
  SELECT id, uuid, machine_id, started_at, finished_at, status, grid, configurations, repeat FROM sweep;
DROP TABLE sweep;
ALTER TABLE sweep_v3 RENAME TO sweep;
