-- Version 2: the device side of each batch, the GPU series, and the
-- headline figures as columns so history and charts need no JSON parsing.
ALTER TABLE batch ADD COLUMN copy_ms REAL;      -- NULL: no device copy (none sink)
ALTER TABLE batch ADD COLUMN compute_ms REAL;
ALTER TABLE batch ADD COLUMN stage_ms REAL;

ALTER TABLE sample ADD COLUMN gpu_util REAL;     -- NVML, 0..1; NULL: no NVML
ALTER TABLE sample ADD COLUMN gpu_mem_bytes INTEGER;

ALTER TABLE run ADD COLUMN throughput_sps REAL;
ALTER TABLE run ADD COLUMN wait_p50_ms REAL;
ALTER TABLE run ADD COLUMN wait_p95_ms REAL;
ALTER TABLE run ADD COLUMN wait_p99_ms REAL;
ALTER TABLE run ADD COLUMN wait_max_ms REAL;
ALTER TABLE run ADD COLUMN gpu_util_exact REAL;
ALTER TABLE run ADD COLUMN gpu_util_nvml REAL;
ALTER TABLE run ADD COLUMN rss_peak_bytes INTEGER;
ALTER TABLE run ADD COLUMN pss_peak_bytes INTEGER;
ALTER TABLE run ADD COLUMN uss_peak_bytes INTEGER;
ALTER TABLE run ADD COLUMN private_peak_bytes INTEGER;
ALTER TABLE run ADD COLUMN arena_bytes INTEGER;
ALTER TABLE run ADD COLUMN cpu_percent REAL;
ALTER TABLE run ADD COLUMN time_to_first_batch_ms REAL;
ALTER TABLE run ADD COLUMN epoch_boundary_ms REAL;
ALTER TABLE run ADD COLUMN samples INTEGER;
ALTER TABLE run ADD COLUMN skipped_samples INTEGER;

-- Runs written by version 1 keep their figures in the JSON summary.
UPDATE run SET
  throughput_sps = json_extract (summary, '$.throughput_sps'),
  wait_p50_ms = json_extract (summary, '$.batch_wait_ms.p50'),
  wait_p95_ms = json_extract (summary, '$.batch_wait_ms.p95'),
  wait_p99_ms = json_extract (summary, '$.batch_wait_ms.p99'),
  wait_max_ms = json_extract (summary, '$.batch_wait_ms.max'),
  pss_peak_bytes = json_extract (summary, '$.memory.pss_peak_bytes'),
  rss_peak_bytes = json_extract (summary, '$.memory.rss_peak_bytes'),
  cpu_percent = json_extract (summary, '$.cpu_percent'),
  samples = json_extract (summary, '$.samples')
WHERE summary IS NOT NULL AND json_valid (summary);

CREATE INDEX run_by_start ON run (started_at);
