-- Version 4: where each batch's build time went. Wall-clock ms summed over
-- the batch's samples (read, decode, transform, write) and over the tasks
-- that built it (idle: its builders waiting for the task; busy: their time
-- on it). NULL: not measured (runs recorded before version 4).
ALTER TABLE batch ADD COLUMN read_ms REAL;
ALTER TABLE batch ADD COLUMN decode_ms REAL;
ALTER TABLE batch ADD COLUMN transform_ms REAL;
ALTER TABLE batch ADD COLUMN write_ms REAL;
ALTER TABLE batch ADD COLUMN idle_ms REAL;
ALTER TABLE batch ADD COLUMN busy_ms REAL;

-- The same per measured batch, as the run's means (the summary's stages_ms).
ALTER TABLE run ADD COLUMN stage_read_ms REAL;
ALTER TABLE run ADD COLUMN stage_decode_ms REAL;
ALTER TABLE run ADD COLUMN stage_transform_ms REAL;
ALTER TABLE run ADD COLUMN stage_write_ms REAL;
ALTER TABLE run ADD COLUMN stage_idle_ms REAL;
ALTER TABLE run ADD COLUMN stage_busy_ms REAL;
