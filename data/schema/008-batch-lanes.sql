-- Version 8: when and where each batch was built, for the run's timeline
-- (one lane per worker and one for the training loop): the worker that
-- built it (-1: the training loop's own process, num_workers 0), and its
-- build's start and end in ms since the iteration started (as ready_ms).
-- NULL: not known (runs recorded before version 8, a script's batch the
-- probe could not match).
ALTER TABLE batch ADD COLUMN worker INTEGER;
ALTER TABLE batch ADD COLUMN build_start_ms REAL;
ALTER TABLE batch ADD COLUMN build_end_ms REAL;
