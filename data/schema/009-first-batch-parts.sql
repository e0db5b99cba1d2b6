-- Version 9: the wait for a run's first batch in its parts, along the
-- worker that finished it last (they add up to time_to_first_batch_ms):
-- the worker's start, its populating the arena's pages, its first task in
-- flight, its build, and the hand-off to the consumer. The page size the
-- arena got. Per worker: populating the arena, and the page faults it took
-- building the measured batches with the bytes it wrote. NULL: not
-- measured (runs recorded before version 9, or a script's run).
ALTER TABLE run ADD COLUMN first_worker_start_ms REAL;
ALTER TABLE run ADD COLUMN first_populate_ms REAL;
ALTER TABLE run ADD COLUMN first_in_flight_ms REAL;
ALTER TABLE run ADD COLUMN first_build_ms REAL;
ALTER TABLE run ADD COLUMN first_handoff_ms REAL;
ALTER TABLE run ADD COLUMN arena_page_bytes INTEGER;

ALTER TABLE worker ADD COLUMN populate_ms REAL;
ALTER TABLE worker ADD COLUMN measured_faults INTEGER;
ALTER TABLE worker ADD COLUMN measured_bytes INTEGER;
