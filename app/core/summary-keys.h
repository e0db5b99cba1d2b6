/* The run summary's figure keys (DESIGN.md, "Command line contract"),
 * named once: the summary's members, the run table's columns of the same
 * name, and the keys of documents built from them (tune, what-if). */
#pragma once

#define LS_KEY_THROUGHPUT "throughput_sps"       /* samples per second over the measured batches */
#define LS_KEY_GPU_UTIL_EXACT "gpu_util_exact"   /* the consumer's own busy share (0..1; null: none) */
#define LS_KEY_GPU_UTIL_NVML "gpu_util_nvml"     /* NVML's utilization over the run (0..1; null: none) */
#define LS_KEY_PSS_PEAK "pss_peak_bytes"  /* memory: the peak PSS of runner + workers, bytes (in the summary's "memory" object) */
#define LS_KEY_COMPUTE_MS "compute_ms"  /* the model step per batch, ms: {p50, p95, p99, max, mean} */
#define LS_KEY_COPY_MS "copy_ms"        /* the host-to-device copy per batch, ms: {p50, ...}; null: none */
#define LS_KEY_BATCH_WAIT_MS "batch_wait_ms"  /* the consumer's wait in next() per batch, ms: {p50, p95, p99, max, mean} */
#define LS_KEY_FIRST_BATCH_MS "time_to_first_batch_ms"  /* pool start to the first batch in the consumer's hands, ms */
