-- Version 5: the process that owns a running sweep (the `sweep`, `demo`,
-- `tune` or window process that begins and ends it), so that the next
-- writing open can mark a sweep whose process is gone as interrupted
-- instead of leaving it running forever. owner_start is the process's
-- start time as the OS keeps it (platform/process-identity.h): a later
-- process given the same pid is not taken for the owner. NULL: no owner on
-- this machine (sweeps recorded before version 5, imported sweeps, and
-- Slurm sweeps, which outlive the process that submitted them).
ALTER TABLE sweep ADD COLUMN owner_pid INTEGER;
ALTER TABLE sweep ADD COLUMN owner_start INTEGER;
