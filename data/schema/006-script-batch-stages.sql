-- Version 6: where each batch of a user's script (--target pytorch) spent
-- its time inside the script's DataLoader, in ms: the sampler's indices,
-- Dataset.__getitem__ summed over the batch's samples, collate_fn, and the
-- hand-off (batch finished in its worker -> received by the training
-- process). NULL: not a script's batch, or not seen (runs recorded before
-- version 6, a batch the probe could not match).
ALTER TABLE batch ADD COLUMN sampler_ms REAL;
ALTER TABLE batch ADD COLUMN getitem_ms REAL;
ALTER TABLE batch ADD COLUMN collate_ms REAL;
ALTER TABLE batch ADD COLUMN handoff_ms REAL;
