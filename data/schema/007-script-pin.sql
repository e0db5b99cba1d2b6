-- Version 7: with pin_memory on CUDA, the time PyTorch's pin_memory() took
-- on each batch of a user's script (a part of its hand-off). NULL: not a
-- script's batch, nothing pinned, or runs recorded before version 7.
ALTER TABLE batch ADD COLUMN pin_ms REAL;
