/* The run summary's figure keys (DESIGN.md, "Command line contract"),
 * named once: the summary's members, the run table's columns of the same
 * name, and the keys of documents built from them (tune, what-if). */
#pragma once

#define LS_KEY_THROUGHPUT "throughput_sps"       /* samples per second over the measured batches */
#define LS_KEY_GPU_UTIL_EXACT "gpu_util_exact"   /* the consumer's own busy share (0..1; null: none) */
#define LS_KEY_GPU_UTIL_NVML "gpu_util_nvml"     /* NVML's utilization over the run (0..1; null: none) */
