-- Version 11: whether the machine is a container, and which kind
-- ("docker", "podman", "kubernetes", ..., or "none"); NULL where it was not
-- known (rows recorded before, Windows). A run inside `docker run` on a GPU
-- server records the container's view of the machine (its OS, its host
-- name), so this says what that view is. Not part of the fingerprint: the
-- same machine keeps its row.
ALTER TABLE machine ADD COLUMN container TEXT;
